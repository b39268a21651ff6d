/**
 * docs/upgrades.md's rolling upgrade: the previous release's build (LEASEHOLD_PREVIOUS_BUILD, a folder
 * holding its dist/ and node_modules) runs three APIs, the projector and the reactor on one PostgreSQL
 * database; while clients create leases through the APIs, the projector, the reactor, then each API in
 * turn are replaced by this build's. A balancer stops sending to an API before it is stopped, as one in
 * front of them would. No request fails, and every lease created is in the log and in every API's list.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, blazarDate, everyPage, hostReservation } from '../helpers/http.js';
import { describeBody } from '../helpers/lease-client.js';
import { queryPostgres } from '../helpers/postgres.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const url = process.env.LEASEHOLD_TEST_PG_E2E_URL ?? '';
const previous = process.env.LEASEHOLD_PREVIOUS_BUILD ?? '';
const CLIENTS = 3;

describe.skipIf(url === '' || previous === '')("a rolling upgrade from the previous release's build on one PostgreSQL", () => {
  const database = `leasehold_rolling_${randomBytes(6).toString('hex')}`;
  let env: Record<string, string>;
  let db: string;
  const apis: (RunningSystem | null)[] = [];
  let projector: RunningSystem | undefined;
  let reactor: RunningSystem | undefined;

  beforeAll(async () => {
    await queryPostgres(url, `create database ${database}`);
    const dbUrl = new URL(url);
    dbUrl.pathname = `/${database}`;
    db = dbUrl.toString();
    env = { LEASEHOLD_EVENT_STORE_URL: db, LEASEHOLD_READ_MODEL_URL: db };
    apis.push(await startSystem({ apps: ['api'], env, root: previous }));
    projector = await startSystem({ apps: ['projector'], env, root: previous });
    reactor = await startSystem({ apps: ['reactor'], env, root: previous });
    for (let i = 1; i < 3; i++) apis.push(await startSystem({ apps: ['api'], env, root: previous }));
  }, 180_000);

  afterAll(async () => {
    for (const system of [...apis, projector, reactor]) await system?.stop();
    await queryPostgres(url, `drop database if exists ${database} with (force)`);
  });

  it('replaces every process while clients create leases: no failed request, no lost lease', async () => {
    const host = await api((apis[0] as RunningSystem).url).post('/v1/os-hosts', { name: 'rolling-host' });
    expect(host.status, describeBody(host)).toBe(201);

    const failures: string[] = [];
    const created: string[] = [];
    const inFlight = new Map<number, number>();
    let stopping = false;
    let sequence = 0;
    const client = async (n: number): Promise<void> => {
      for (let round = 0; !stopping; round++) {
        const live = apis.flatMap((system, i) => (system === null ? [] : [i]));
        const i = live[(n + round) % live.length] ?? 0;
        inFlight.set(i, (inFlight.get(i) ?? 0) + 1);
        try {
          // one lease after another on the one host, never overlapping: each is admitted
          const start = 600 + sequence++ * 10;
          const response = await api((apis[i] as RunningSystem).url).post('/v1/leases', {
            name: `rolling-${n}-${round}`,
            start_date: blazarDate(start),
            end_date: blazarDate(start + 2),
            reservations: [hostReservation(1)],
          });
          if (response.status === 201) created.push(response.body.lease.id as string);
          else failures.push(`api ${i}: ${describeBody(response)}`);
        } catch (error) {
          failures.push(`api ${i}: ${String(error)}`);
        } finally {
          inFlight.set(i, (inFlight.get(i) ?? 1) - 1);
        }
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));
    const replaceApi = async (i: number): Promise<void> => {
      const old = apis[i] as RunningSystem;
      apis[i] = null;
      await eventually(async () => ((inFlight.get(i) ?? 0) === 0 ? true : undefined), 10_000, `api ${i} to drain`);
      await old.stop();
      apis[i] = await startSystem({ apps: ['api'], env });
    };

    await eventually(async () => (created.length >= 10 ? true : undefined), 30_000, 'leases through the previous release');
    await projector?.stop();
    projector = await startSystem({ apps: ['projector'], env });
    await projector.healthy();
    await reactor?.stop();
    reactor = await startSystem({ apps: ['reactor'], env });
    await reactor.healthy();
    for (let i = 0; i < 3; i++) {
      const before = created.length;
      await replaceApi(i);
      await eventually(async () => (created.length >= before + 10 ? true : undefined), 30_000, `leases after api ${i} was upgraded`);
    }
    stopping = true;
    await Promise.all(clients);

    expect(failures).toEqual([]);
    const stored = await queryPostgres<{ n: string }>(db, `select count(*) as n from leasehold.events where type = 'Lease.Created'`);
    expect(Number(stored[0]?.n)).toBe(created.length);
    for (const system of apis) {
      const listed = await eventually(
        async () => {
          // a loaded machine lets the clients create more than a page of leases: every page is read
          const { items } = await everyPage(api((system as RunningSystem).url), 'leases', '/v1/leases?limit=1000');
          const ids = new Set((items as { id: string }[]).map((lease) => lease.id));
          return created.every((id) => ids.has(id)) ? ids : undefined;
        },
        30_000,
        'every lease in the read model',
      );
      expect(listed.size).toBe(created.length);
    }
  }, 300_000);
});
