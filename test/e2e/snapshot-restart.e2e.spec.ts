import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteSnapshotStore } from '#event-store/snapshots/sqlite-snapshot-store.js';
import { WRITE_INDEX_SCHEMA_VERSION, WRITE_INDEX_SNAPSHOT_KIND } from '#application/write-model/write-index.snapshots.js';
import { TIMELINE_SCHEMA_VERSION, TIMELINE_SNAPSHOT_KIND } from '#reactor/timeline-snapshots.js';
import { SystemProcesses } from '../../bench/system-processes.js';

const MINUTE = 60_000;
const requestDate = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

const send = async (url: string, method: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> => {
  const response = await fetch(url, {
    method,
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text.length > 0 ? (JSON.parse(text) as Record<string, any>) : {} };
};

const hostLease = (name: string, startMs: number, endMs: number) => ({
  name,
  start_date: requestDate(startMs),
  end_date: requestDate(endMs),
  reservations: [{ resource_type: 'physical:host', min: 1, max: 1, hypervisor_properties: '', resource_properties: '' }],
  events: [],
});

const snapshotPositions = async (dir: string): Promise<{ index: number | null; timeline: number | null }> => {
  const file = join(dir, 'events.sqlite');
  const snapshots = SqliteSnapshotStore.open(file);
  try {
    const index = await snapshots.load(WRITE_INDEX_SNAPSHOT_KIND, WRITE_INDEX_SCHEMA_VERSION);
    const timeline = await snapshots.load(TIMELINE_SNAPSHOT_KIND, TIMELINE_SCHEMA_VERSION);
    return { index: index?.position ?? null, timeline: timeline?.position ?? null };
  } finally {
    await snapshots.close();
  }
};

/**
 * The api and the reactor stopped and started again: they start from the snapshots their stop wrote
 * (their logs say so), and what was decided before still holds: the only host, booked before the
 * stop, is refused to an overlapping lease, and the reactor starts and ends the lease when due.
 */
describe('api and reactor restarted from their snapshots', () => {
  let dir: string;
  let system: SystemProcesses;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-snapshot-restart-'));
    system = await SystemProcesses.start(dir);
  });

  afterAll(async () => {
    await system?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a lease overlapping one made before the restart, and runs that lease when due', async () => {
    expect((await send(`${system.url}/v1/os-hosts`, 'POST', { name: 'snap-1', vcpus: 8, memory_mb: 16384, local_gb: 200 })).status).toBe(
      201,
    );
    const startMs = Math.ceil((Date.now() + 20_000) / MINUTE) * MINUTE;
    const created = await send(`${system.url}/v1/leases`, 'POST', hostLease('before-restart', startMs, startMs + MINUTE));
    expect(created.status).toBe(201);
    const leaseId = created.body.lease.id as string;

    await system.stopApp('api');
    await system.stopApp('reactor');
    const written = await snapshotPositions(dir);
    // the stops wrote them (each at the last event of its categories it folded)
    expect(written.index).toBeGreaterThan(0);
    expect(written.timeline).toBeGreaterThan(0);

    await system.startApp('reactor');
    await system.startApp('api');
    expect(system.output('api')).toContain(`"event":"write-index","snapshot":${written.index}`);
    expect(system.output('reactor')).toContain(`"snapshot":${written.timeline}`);

    const overlapping = await send(`${system.url}/v1/leases`, 'POST', hostLease('overlapping', startMs + 30_000, startMs + 2 * MINUTE));
    expect(overlapping.status).toBe(409);
    expect(overlapping.body.error_code).toBe(409);
    const after = await send(`${system.url}/v1/leases`, 'POST', hostLease('after', startMs + 2 * MINUTE, startMs + 3 * MINUTE));
    expect(after.status).toBe(201);

    const deadline = startMs + 2 * MINUTE;
    let status = '';
    while (Date.now() < deadline && status !== 'TERMINATED') {
      status = (await send(`${system.url}/v1/leases/${leaseId}`, 'GET')).body.lease?.status as string;
      if (status !== 'TERMINATED') await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(status).toBe('TERMINATED');
  }, 240_000);
});
