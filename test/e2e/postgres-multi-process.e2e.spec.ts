import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, blazarDate, hostReservation } from '../helpers/http.js';
import { type LedgerEvent, allHolds, foldLedger, wholeHostClashes } from '../helpers/ledger-replay.js';
import { queryPostgres } from '../helpers/postgres.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

/**
 * One PostgreSQL database, six processes: three APIs on their own ports, a projector and two reactors.
 * Sixteen clients spread over the three APIs book no host twice (through the API and by replaying the
 * rows); one reactor leads, the other waits, and a SIGKILL of the leader hands over within 10 s
 * without any lease started twice.
 */
const url = process.env.LEASEHOLD_TEST_PG_E2E_URL ?? '';

interface Row {
  readonly position: string;
  readonly stream_id: string;
  readonly type: string;
  readonly data: string;
}

describe.skipIf(url === '')('three APIs, a projector and two reactors on one PostgreSQL database', () => {
  let db: string;
  const database = `leasehold_multi_${randomBytes(6).toString('hex')}`;
  const apis: RunningSystem[] = [];
  const reactors: RunningSystem[] = [];
  let projector: RunningSystem | undefined;

  const ledger = async (): Promise<LedgerEvent[]> =>
    (await queryPostgres<Row>(db, 'select position, stream_id, type, data from leasehold.events order by position')).map((row) => ({
      position: Number(row.position),
      streamId: row.stream_id,
      type: row.type,
      data: JSON.parse(row.data),
    }));

  beforeAll(async () => {
    await queryPostgres(url, `create database ${database}`);
    const dbUrl = new URL(url);
    dbUrl.pathname = `/${database}`;
    db = dbUrl.toString();
    const env = { LEASEHOLD_EVENT_STORE_URL: db, LEASEHOLD_READ_MODEL_URL: db };
    // the first API creates the schemas; the others and the projector find them
    apis.push(await startSystem({ apps: ['api'], env }));
    projector = await startSystem({ apps: ['projector'], env });
    for (let i = 0; i < 2; i++) apis.push(await startSystem({ apps: ['api'], env }));
    for (let i = 0; i < 2; i++) reactors.push(await startSystem({ apps: ['reactor'], env }));
    await eventually(
      async () =>
        reactors.some((r) => r.output().includes('"event":"leader"')) && reactors.some((r) => r.output().includes('"event":"standby"'))
          ? true
          : undefined,
      30_000,
      'one reactor leading, one standing by',
    );
  }, 180_000);

  afterAll(async () => {
    for (const system of [...apis, ...reactors, projector]) await system?.stop();
    await queryPostgres(url, `drop database if exists ${database} with (force)`);
  });

  it('sixteen clients over three APIs: no host booked twice, through every API and by replaying the log', async () => {
    const hosts: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await api((apis[i % 3] as RunningSystem).url).post('/v1/os-hosts', { name: `multi-${i}`, pool: 'multi' });
      expect(created.status).toBe(201);
      hosts.push(created.body.host.id as string);
    }
    const onPool = { resource_properties: '["==", "$pool", "multi"]' };
    const statuses = (
      await Promise.all(
        Array.from({ length: 16 }, async (_, client) => {
          const http = api((apis[client % 3] as RunningSystem).url);
          const got: number[] = [];
          for (let n = 0; n < 4; n++) {
            const start = 600 + ((client + n) % 4) * 60;
            got.push(
              (
                await http.post('/v1/leases', {
                  name: `multi-${client}-${n}`,
                  start_date: blazarDate(start),
                  end_date: blazarDate(start + 90),
                  reservations: [hostReservation(1, 1, onPool)],
                  events: [],
                })
              ).status,
            );
          }
          return got;
        }),
      )
    ).flat();
    expect(statuses.filter((status) => status !== 201 && status !== 409)).toEqual([]);
    const admitted = statuses.filter((status) => status === 201).length;
    expect(admitted).toBeGreaterThan(4);
    expect(statuses).toContain(409);

    for (const system of apis) {
      const allocations = await api(system.url).get('/v1/os-hosts/allocations');
      const mine = (
        allocations.body.allocations as { resource_id: string; reservations: { start_date: string; end_date: string }[] }[]
      ).filter((entry) => hosts.includes(entry.resource_id));
      expect(mine.reduce((sum, entry) => sum + entry.reservations.length, 0)).toBe(admitted);
      for (const entry of mine) {
        const windows = entry.reservations
          .map((r) => [Date.parse(`${r.start_date}Z`), Date.parse(`${r.end_date}Z`)] as const)
          .sort((a, b) => a[0] - b[0]);
        windows
          .slice(1)
          .forEach((window, i) =>
            expect(window[0], `host ${entry.resource_id}`).toBeGreaterThanOrEqual((windows[i] as readonly [number, number])[1]),
          );
      }
    }
    const events = await ledger();
    expect(events.map((event) => event.position)).toEqual(events.map((_, i) => i + 1));
    const fold = foldLedger(events);
    expect(fold.misfiled).toEqual([]);
    const holds = allHolds(fold.hostHolds);
    expect(holds).toHaveLength(admitted);
    expect(wholeHostClashes(holds, 0)).toEqual([]);
  }, 120_000);

  it('kill -9 of the leading reactor: the other takes over within 10 s, and no lease is started twice', async () => {
    const http = api((apis[1] as RunningSystem).url);
    expect((await http.post('/v1/os-hosts', { name: 'multi-start', pool: 'start' })).status).toBe(201);
    const onStart = { resource_properties: '["==", "$pool", "start"]' };
    const first = await http.post('/v1/leases', {
      name: 'before-kill',
      start_date: 'now',
      end_date: blazarDate(30),
      reservations: [hostReservation(1, 1, onStart)],
      events: [],
    });
    expect(first.status).toBe(201);
    await eventually(
      async () => ((await http.get(`/v1/leases/${first.body.lease.id}`)).body.lease.status === 'ACTIVE' ? true : undefined),
      30_000,
      'the first lease to start',
    );

    const leader = reactors.find((r) => r.output().includes('"event":"leader"')) as RunningSystem;
    const standby = reactors.find((r) => r !== leader) as RunningSystem;
    leader.signal('SIGKILL');
    const killedAt = Date.now();
    await eventually(async () => (standby.output().includes('"event":"leader"') ? true : undefined), 15_000, 'the standby to lead');
    expect(Date.now() - killedAt).toBeLessThan(10_000);

    const second = await http.post('/v1/leases', {
      name: 'after-kill',
      start_date: 'now',
      end_date: blazarDate(60),
      reservations: [hostReservation(1, 1, { resource_properties: '["==", "$pool", "multi"]' })],
      events: [],
    });
    expect(second.status).toBe(201);
    await eventually(
      async () => ((await http.get(`/v1/leases/${second.body.lease.id}`)).body.lease.status === 'ACTIVE' ? true : undefined),
      30_000,
      'the second lease to start',
    );

    const events = await ledger();
    for (const leaseId of [first.body.lease.id as string, second.body.lease.id as string]) {
      const mine = events.filter((event) => event.streamId === `lease-${leaseId}`).map((event) => event.type);
      expect(
        mine.filter((type) => type === 'Lease.StartRequested'),
        leaseId,
      ).toHaveLength(1);
      expect(
        mine.filter((type) => type === 'Lease.Started'),
        leaseId,
      ).toHaveLength(1);
    }
  }, 120_000);
});
