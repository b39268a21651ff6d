import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, blazarDate, hostReservation } from '../helpers/http.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

const url = process.env.LEASEHOLD_TEST_PG_E2E_URL;

describe.skipIf(url === undefined || url === '')('read models on PostgreSQL (LEASEHOLD_READ_MODEL_URL)', () => {
  let system: RunningSystem;

  beforeAll(async () => {
    system = await startSystem({ env: { LEASEHOLD_READ_MODEL_URL: url ?? '' } });
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('serves leases and hosts from PostgreSQL with Blazar field order intact', async () => {
    const http = api(system.url);
    const host = await http.post('/v1/os-hosts', { name: `pg-${Date.now()}`, rack: 'r1' });
    expect(host.status).toBe(201);
    const created = await http.post('/v1/leases', {
      name: 'pg-lease',
      start_date: blazarDate(600),
      end_date: blazarDate(660),
      reservations: [hostReservation(1, 1, { hypervisor_properties: `["==", "$hypervisor_hostname", "${host.body.host.hypervisor_hostname}"]` })],
    });
    expect(created.status).toBe(201);
    const shown = await http.get(`/v1/leases/${created.body.lease.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(created.body);
    expect(Object.keys(shown.body.lease)).toEqual(Object.keys(created.body.lease));
    expect(Object.keys(shown.body.lease.reservations[0])).toEqual(Object.keys(created.body.lease.reservations[0]));
    const hostShown = await http.get(`/v1/os-hosts/${host.body.host.id}`);
    expect(Object.keys(hostShown.body.host)).toEqual(Object.keys(host.body.host));
    const allocations = await http.get(`/v1/os-hosts/allocations?lease_id=${created.body.lease.id}`);
    expect(allocations.body.allocations.find((a: { resource_id: string }) => a.resource_id === host.body.host.id).reservations).toHaveLength(1);
  });
});
