import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, blazarDate, hostReservation } from '../helpers/http.js';
import { queryPostgres } from '../helpers/postgres.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

const url = process.env.LEASEHOLD_TEST_PG_E2E_URL;

describe.skipIf(url === undefined || url === '')('read models on PostgreSQL (LEASEHOLD_READ_MODEL_URL)', () => {
  let system: RunningSystem;
  /**
   * A database of its own on the test server: each run starts a new event log, whose positions a read model
   * (and its checkpoints) left behind by an earlier run would claim to have projected already.
   */
  let db: string;
  const database = `leasehold_e2e_${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    await queryPostgres(url ?? '', `create database ${database}`);
    const dbUrl = new URL(url ?? '');
    dbUrl.pathname = `/${database}`;
    db = dbUrl.toString();
    system = await startSystem({ env: { LEASEHOLD_READ_MODEL_URL: db } });
  });

  afterAll(async () => {
    await system?.stop();
    await queryPostgres(url ?? '', `drop database if exists ${database} with (force)`);
  });

  it('serves leases and hosts from PostgreSQL with Blazar field order intact', async () => {
    const http = api(system.url);
    const host = await http.post('/v1/os-hosts', { name: `pg-${Date.now()}`, rack: 'r1' });
    expect(host.status).toBe(201);
    const created = await http.post('/v1/leases', {
      name: 'pg-lease',
      start_date: blazarDate(600),
      end_date: blazarDate(660),
      reservations: [
        hostReservation(1, 1, { hypervisor_properties: `["==", "$hypervisor_hostname", "${host.body.host.hypervisor_hostname}"]` }),
      ],
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
    expect(
      allocations.body.allocations.find((a: { resource_id: string }) => a.resource_id === host.body.host.id).reservations,
    ).toHaveLength(1);
  });

  it('writes the lease, its reservation and allocation, and the host as rows in PostgreSQL', async () => {
    const http = api(system.url);
    const host = await http.post('/v1/os-hosts', { name: `pg-rows-${Date.now()}` });
    expect(host.status).toBe(201);
    const hostname = host.body.host.hypervisor_hostname as string;
    const created = await http.post('/v1/leases', {
      name: 'pg-rows-lease',
      start_date: blazarDate(900),
      end_date: blazarDate(960),
      reservations: [hostReservation(1, 1, { hypervisor_properties: `["==", "$hypervisor_hostname", "${hostname}"]` })],
    });
    expect(created.status).toBe(201);
    const lease = created.body.lease;
    expect((await http.get(`/v1/leases/${lease.id}`)).status).toBe(200); // read after the projection caught up

    const hosts = await queryPostgres<{ id: string; hypervisor_hostname: string }>(
      db,
      'select id, hypervisor_hostname from lh_hosts where id = $1',
      [host.body.host.id],
    );
    expect(hosts).toEqual([{ id: host.body.host.id, hypervisor_hostname: hostname }]);
    const leases = await queryPostgres<{ name: string; project_id: string }>(db, 'select name, project_id from lh_leases where id = $1', [
      lease.id,
    ]);
    expect(leases).toEqual([{ name: 'pg-rows-lease', project_id: lease.project_id }]);
    const reservations = await queryPostgres<{ id: string; resource_type: string }>(
      db,
      'select id, resource_type from lh_reservations where lease_id = $1',
      [lease.id],
    );
    expect(reservations).toEqual([{ id: lease.reservations[0].id, resource_type: 'physical:host' }]);
    const allocations = await queryPostgres<{ host_id: string }>(db, 'select host_id from lh_allocations where lease_id = $1', [lease.id]);
    expect(allocations).toEqual([{ host_id: host.body.host.id }]);
  });
});
