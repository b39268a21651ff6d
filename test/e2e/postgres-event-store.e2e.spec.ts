import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, blazarDate, hostReservation } from '../helpers/http.js';
import { type LedgerEvent, allHolds, foldLedger, wholeHostClashes } from '../helpers/ledger-replay.js';
import { queryPostgres } from '../helpers/postgres.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

/**
 * The whole system on PostgreSQL (LEASEHOLD_EVENT_STORE_URL and LEASEHOLD_READ_MODEL_URL): sixteen
 * clients race for four hosts, and neither the API nor an auditor's replay of the log in PostgreSQL
 * finds a host booked twice; the reactor, subscribed to that log, starts a lease.
 */
const url = process.env.LEASEHOLD_TEST_PG_E2E_URL ?? '';

describe.skipIf(url === '')('the system on a PostgreSQL event store (LEASEHOLD_EVENT_STORE_URL)', () => {
  let system: RunningSystem;
  let db: string;
  const database = `leasehold_es_e2e_${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    await queryPostgres(url, `create database ${database}`);
    const dbUrl = new URL(url);
    dbUrl.pathname = `/${database}`;
    db = dbUrl.toString();
    system = await startSystem({ env: { LEASEHOLD_EVENT_STORE_URL: db, LEASEHOLD_READ_MODEL_URL: db } });
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    await queryPostgres(url, `drop database if exists ${database} with (force)`);
  });

  it('keeps no log in the data folder: the events are rows in PostgreSQL', async () => {
    const http = api(system.url);
    expect((await http.post('/v1/os-hosts', { name: 'pg-es-probe' })).status).toBe(201);
    expect(existsSync(join(system.dataDir, 'events.sqlite'))).toBe(false);
    const rows = await queryPostgres<{ type: string }>(
      db,
      "select type from leasehold.events where type like 'HostRegistry.%' order by position",
    );
    expect(rows.map((row) => row.type)).toContain('HostRegistry.HostAdded');
  });

  it('sixteen clients racing for four hosts: no host booked twice, through the API and by replaying the log', async () => {
    const http = api(system.url);
    const hosts: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await http.post('/v1/os-hosts', { name: `pg-es-race-${i}`, pool: 'race' });
      expect(created.status).toBe(201);
      hosts.push(created.body.host.id as string);
    }
    const onRace = { resource_properties: '["==", "$pool", "race"]' };
    const outcomes = await Promise.all(
      Array.from({ length: 16 }, async (_, client) => {
        const statuses: number[] = [];
        for (let n = 0; n < 4; n++) {
          // overlapping windows: each hour is wanted by about four clients at once
          const start = 600 + ((client + n) % 4) * 60;
          const response = await api(system.url).post('/v1/leases', {
            name: `race-${client}-${n}`,
            start_date: blazarDate(start),
            end_date: blazarDate(start + 90),
            reservations: [hostReservation(1, 1, onRace)],
            events: [],
          });
          statuses.push(response.status);
        }
        return statuses;
      }),
    );
    const statuses = outcomes.flat();
    expect(statuses.filter((status) => status !== 201 && status !== 409)).toEqual([]);
    expect(statuses.filter((status) => status === 201).length).toBeGreaterThan(4);
    expect(statuses.filter((status) => status === 409).length).toBeGreaterThan(0);

    const allocations = await http.get('/v1/os-hosts/allocations');
    for (const entry of allocations.body.allocations as {
      resource_id: string;
      reservations: { start_date: string; end_date: string }[];
    }[]) {
      if (!hosts.includes(entry.resource_id)) continue;
      const windows = entry.reservations
        .map((r) => [Date.parse(`${r.start_date}Z`), Date.parse(`${r.end_date}Z`)] as const)
        .sort((a, b) => a[0] - b[0]);
      windows
        .slice(1)
        .forEach((window, i) =>
          expect(window[0], `host ${entry.resource_id}`).toBeGreaterThanOrEqual((windows[i] as readonly [number, number])[1]),
        );
    }

    const rows = await queryPostgres<{ position: string; stream_id: string; type: string; data: string }>(
      db,
      'select position, stream_id, type, data from leasehold.events order by position',
    );
    const events: LedgerEvent[] = rows.map((row) => ({
      position: Number(row.position),
      streamId: row.stream_id,
      type: row.type,
      data: JSON.parse(row.data),
    }));
    expect(events.map((event) => event.position)).toEqual(events.map((_, i) => i + 1));
    const fold = foldLedger(events);
    expect(fold.misfiled).toEqual([]);
    const holds = allHolds(fold.hostHolds);
    expect(holds.length).toBe(statuses.filter((status) => status === 201).length);
    expect(wholeHostClashes(holds, 0)).toEqual([]);
  }, 120_000);

  it('the reactor, reading the same log, starts a lease', async () => {
    const http = api(system.url);
    expect((await http.post('/v1/os-hosts', { name: 'pg-es-start', pool: 'start' })).status).toBe(201);
    const created = await http.post('/v1/leases', {
      name: 'pg-es-now',
      start_date: 'now',
      end_date: blazarDate(120),
      reservations: [hostReservation(1, 1, { resource_properties: '["==", "$pool", "start"]' })],
      events: [],
    });
    expect(created.status).toBe(201);
    await eventually(
      async () => ((await http.get(`/v1/leases/${created.body.lease.id}`)).body.lease.status === 'ACTIVE' ? true : undefined),
      30_000,
      'the lease to start',
    );
  });
});
