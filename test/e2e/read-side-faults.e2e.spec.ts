import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpReadModel } from '#projector/dump-read-model.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { openReadModel } from '#read-model/index.js';
import { api, blazarDate, hostReservation } from '../helpers/http.js';
import { ROOT, type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const run = promisify(execFile);

/** A read answered without waiting for its timeout: the request gives up long before one would end. */
const get = async (base: string, path: string): Promise<{ status: number; headers: Headers; body: any }> => {
  const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(15_000) });
  return { status: response.status, headers: response.headers, body: await response.json() };
};

const probe = async (url: string): Promise<{ status: number; body: any }> => {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
};

const leaseBody = (name: string, hostname: string) => ({
  name,
  start_date: blazarDate(600),
  end_date: blazarDate(660),
  reservations: [hostReservation(1, 1, { hypervisor_properties: `["==", "$hypervisor_hostname", "${hostname}"]` })],
});

/**
 * A read model that refuses a value (simulated with a trigger in the live read model: the projection's
 * insert fails at that event) must hold back only the reads it serves, say so, and resume by itself
 * once the value is corrected through the API. The wait for read-your-writes is set far longer than
 * the requests may take, so every read below proves it was answered at once.
 */
describe('a read model that cannot project an event (docs/operations.md, "A read model is stopped on an event")', () => {
  let system: RunningSystem;
  let http: ReturnType<typeof api>;

  beforeAll(async () => {
    system = await startSystem({
      env: { LEASEHOLD_READ_YOUR_WRITES_TIMEOUT_MS: '60000', LEASEHOLD_PROJECTOR_MAX_RETRY_SECONDS: '1' },
    });
    await system.healthy();
    http = api(system.url);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('is contained, shown stale with its lag and failure, and resumes by itself after a correction through the API', async () => {
    const host = await http.post('/v1/os-hosts', { name: 'faults-1' });
    expect(host.status).toBe(201);
    const readModel = new Database(join(system.dataDir, 'read-model.sqlite'));
    readModel.pragma('busy_timeout = 5000');
    readModel.exec(`CREATE TRIGGER refuse_poison BEFORE INSERT ON lh_leases WHEN NEW.name LIKE 'poison-%'
      BEGIN SELECT RAISE(ABORT, 'the read model refuses this name'); END`);
    readModel.close();

    const created = await http.post('/v1/leases', leaseBody('poison-1', 'faults-1'));
    expect(created.status).toBe(201);
    const leaseId = created.body.lease.id as string;
    const store = SqliteEventStore.open({ file: join(system.dataDir, 'events.sqlite') });
    const [leaseCreated] = await store.readStream(`lease-${leaseId}`);
    await store.close();
    const position = leaseCreated?.position ?? 0;

    // the projector stops the leases read model right before the event, says why, and is not ready
    const projector: any = await eventually(
      async () => {
        const answer = await probe(`${system.projectorHealthUrl}/readyz`);
        return answer.status === 503 ? answer.body : undefined;
      },
      20_000,
      'the projector to report the failure',
    );
    const leases = projector.projections.find((p: { name: string }) => p.name === 'leases');
    expect(leases).toMatchObject({ position: position - 1, failure: { position, eventType: 'Lease.Created' } });
    expect(leases.failure.error).toContain('the read model refuses this name');
    expect((await probe(`${system.projectorHealthUrl}/healthz`)).status).toBe(200);
    // the reactor does not read the read models: it stays ready
    expect(await probe(`${system.reactorHealthUrl}/readyz`)).toEqual({
      status: 200,
      body: expect.objectContaining({ service: 'reactor', ready: true, error: null }),
    });
    expect((await probe(`${system.reactorHealthUrl}/healthz`)).status).toBe(200);

    // reads of leases answer at once, marked stale, with the lag and the failure; a 404 too
    const shown = await get(system.url, `/v1/leases/${leaseId}`);
    expect(shown.status).toBe(404);
    expect(shown.headers.get('x-leasehold-stale')).toBe('true');
    expect(shown.body).toMatchObject({
      error_code: 404,
      stale: { read_models: ['leases'], failures: [{ read_model: 'leases', position }] },
    });
    const list = await get(system.url, '/v1/leases');
    expect(list.status).toBe(200);
    expect(list.body.leases).toEqual([]);
    expect(Number(list.headers.get('x-leasehold-lag-positions'))).toBeGreaterThanOrEqual(1);
    expect(Number(list.headers.get('x-leasehold-lag-seconds'))).toBeGreaterThanOrEqual(0);
    expect(list.body.stale.lag_positions).toBe(Number(list.headers.get('x-leasehold-lag-positions')));
    const api = await probe(`${system.url}/readyz`);
    expect(api.status).toBe(503);
    expect(api.body.read_models.find((m: { name: string }) => m.name === 'leases').failure).toMatchObject({
      position,
      event_type: 'Lease.Created',
    });
    expect((await probe(`${system.url}/healthz`)).status).toBe(200);

    // the other read models go on: a new host is shown fresh
    const second = await http.post('/v1/os-hosts', { name: 'faults-2' });
    const hostShown = await get(system.url, `/v1/os-hosts/${second.body.host.id}`);
    expect(hostShown.status).toBe(200);
    expect(hostShown.headers.get('x-leasehold-stale')).toBeNull();
    expect(hostShown.body.stale).toBeUndefined();

    // the write side is not held back either; the correction is an ordinary rename
    const renamed = await http.put(`/v1/leases/${leaseId}`, { name: 'renamed-1' });
    expect(renamed.status).toBe(200);
    const fresh = await eventually(
      async () => {
        const answer = await get(system.url, `/v1/leases/${leaseId}`);
        return answer.status === 200 && answer.headers.get('x-leasehold-stale') === null ? answer : undefined;
      },
      30_000,
      'the leases read model to resume',
    );
    expect(fresh.body.lease.name).toBe('renamed-1');
    expect(fresh.body.stale).toBeUndefined();
    await eventually(
      async () => ((await probe(`${system.projectorHealthUrl}/readyz`)).status === 200 ? true : undefined),
      10_000,
      'projector ready',
    );
    await eventually(async () => ((await probe(`${system.url}/readyz`)).status === 200 ? true : undefined), 10_000, 'api ready');

    // nothing was skipped: the live read model equals a rebuild from the log
    const target = join(system.dataDir, 'compare.sqlite');
    const rebuilt = await run(process.execPath, [join(ROOT, 'dist/apps/projector/src/rebuild.js'), '--target', target], {
      env: { ...process.env, LEASEHOLD_DATA_DIR: system.dataDir },
    });
    expect(JSON.parse(rebuilt.stdout)).toMatchObject({ rebuilt: true });
    const live = await openReadModel({ kind: 'sqlite', file: join(system.dataDir, 'read-model.sqlite') });
    const copy = await openReadModel({ kind: 'sqlite', file: target });
    try {
      const [liveDump, copyDump] = [await dumpReadModel(live), await dumpReadModel(copy)];
      const head = Number(renamed.headers.get('x-leasehold-position'));
      expect(liveDump.lh_leases).toEqual(copyDump.lh_leases);
      expect(liveDump.lh_hosts).toEqual(copyDump.lh_hosts);
      expect(copyDump.lh_leases).toHaveLength(1);
      expect(head).toBeGreaterThan(position);
    } finally {
      await live.close();
      await copy.close();
    }
  }, 120_000);
});

describe('a projector that is not running', () => {
  it('costs one timed-out read, then reads answer at once marked stale until it has caught up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leasehold-no-projector-'));
    const apiOnly = await startSystem({ dataDir: dir, apps: ['api'], env: { LEASEHOLD_READ_YOUR_WRITES_TIMEOUT_MS: '8000' } });
    let projector: RunningSystem | null = null;
    try {
      const http = api(apiOnly.url);
      const host = await http.post('/v1/os-hosts', { name: 'no-projector-1' });
      expect(host.status).toBe(201);
      const first = await http.get(`/v1/os-hosts/${host.body.host.id}`);
      expect(first.status).toBe(404);
      expect(first.body.stale).toMatchObject({ read_models: ['hosts'], failures: [] });
      expect(first.body.stale.lag_positions).toBeGreaterThanOrEqual(2);
      // the next reads do not wait again: each gives up long before the 8 s a wait would take
      const next = await fetch(`${apiOnly.url}/v1/os-hosts`, { signal: AbortSignal.timeout(4_000) });
      expect(next.headers.get('x-leasehold-stale')).toBe('true');
      expect((await probe(`${apiOnly.url}/readyz`)).status).toBe(503);

      projector = await startSystem({ dataDir: dir, apps: ['projector'] });
      const fresh = await eventually(
        async () => {
          const answer = await get(apiOnly.url, `/v1/os-hosts/${host.body.host.id}`);
          return answer.status === 200 && answer.headers.get('x-leasehold-stale') === null ? answer : undefined;
        },
        30_000,
        'the hosts read model to catch up',
      );
      expect(fresh.body.host.hypervisor_hostname).toBe('no-projector-1');
      expect((await probe(`${apiOnly.url}/readyz`)).status).toBe(200);
    } finally {
      await projector?.stop();
      await apiOnly.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('rebuild-read-models', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-rebuild-'));
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('on an event no projection can read, exits non-zero naming it and leaves the read model as it was', async () => {
    const system = await startSystem({ dataDir: dir, apps: ['api', 'projector'] });
    try {
      const http = api(system.url);
      expect((await http.post('/v1/os-hosts', { name: 'rebuild-1' })).status).toBe(201);
      const created = await http.post('/v1/leases', leaseBody('before-the-poison', 'rebuild-1'));
      expect((await http.get(`/v1/leases/${created.body.lease.id}`)).status).toBe(200);
    } finally {
      await system.stop();
    }
    // an event an older release might have written: a lease without its reservations
    const store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
    const poison = await store.appendToStream('lease-poison', 'no_stream', [
      {
        id: crypto.randomUUID(),
        type: 'Lease.Created',
        data: { leaseId: 'poison' },
        metadata: { correlationId: 'test', causationId: 'test', actor: null },
      },
    ]);
    await store.close();
    const live = await openReadModel({ kind: 'sqlite', file: join(dir, 'read-model.sqlite') });
    const before = await dumpReadModel(live);
    await live.close();

    const failed = await run(process.execPath, [join(ROOT, 'dist/apps/projector/src/rebuild.js')], {
      env: { ...process.env, LEASEHOLD_DATA_DIR: dir },
    }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain(`projection leases could not project event ${poison.position} (Lease.Created)`);
    expect(existsSync(join(dir, 'read-model.sqlite.rebuild'))).toBe(false);
    // the copy is built in tables of the live file: none of them is left behind
    const file = new Database(join(dir, 'read-model.sqlite'), { readonly: true });
    try {
      expect(file.prepare(`select name from sqlite_master where name like 'rebuild\\_%' escape '\\'`).pluck().all()).toEqual([]);
    } finally {
      file.close();
    }
    const after = await openReadModel({ kind: 'sqlite', file: join(dir, 'read-model.sqlite') });
    try {
      expect(await dumpReadModel(after)).toEqual(before);
    } finally {
      await after.close();
    }
  }, 120_000);
});
