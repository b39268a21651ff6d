import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quotaExcess, quotaUse } from '#domain/index.js';
import { QUOTAS } from '#plugins/reservation-holdings.js';
import type { SnapshotStore } from '#event-store/snapshots/snapshot-store.port.js';
import { SqliteSnapshotStore } from '#event-store/snapshots/sqlite-snapshot-store.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { buildHostRequest } from '#plugins/physical-host/host-reservation.request.js';
import { CommandHandler } from '../command-handler.js';
import { encodeState } from '../snapshots/state-codec.js';
import { LeaseUseCases } from '../leases/lease.use-cases.js';
import { DEFAULT_SETTINGS, commandMetadata, testCaller } from '../testing/application.specification.js';
import { at, hostRegistered } from '../testing/calendars.fixture.js';
import { appendGiven } from '../testing/given-events.js';
import { WriteIndex } from '../write-model/write-index.js';
import { QuotaIndex } from './quota-index.js';
import { QUOTA_INDEX_SCHEMA_VERSION, QUOTA_INDEX_SNAPSHOT_KIND, openQuotaIndex } from './quota-index.snapshots.js';
import { Quotas } from './quotas.js';

const CONFIG = { everyMs: 3_600_000, everyEvents: 1 };
const oneHost = buildHostRequest({ min: 1, max: 1, hypervisorProperties: '', resourceProperties: '', beforeEnd: 'default' });
const member = (project: string) => commandMetadata(testCaller('member', project, `${project}-user`), at(9));

let dir: string;
let store: SqliteEventStore;
let snapshots: SnapshotStore;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'leasehold-quota-snapshots-'));
  store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
  snapshots = SqliteSnapshotStore.open(join(dir, 'events.sqlite'));
  await appendGiven(
    store,
    [1, 2, 3, 4, 5, 6].map((i) => hostRegistered(String(i))),
  );
});

afterEach(async () => {
  await snapshots.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Leases of two projects, one hour each from `fromHour`, through the use cases with a quota in force. */
const leases = async (index: QuotaIndex, fromHour: number, count: number): Promise<void> => {
  let ids = 0;
  const context = {
    handler: new CommandHandler(store),
    index: new WriteIndex(store),
    settings: DEFAULT_SETTINGS,
    newId: () => `q${fromHour}-${++ids}`,
  };
  const use = new LeaseUseCases(
    context,
    undefined,
    undefined,
    new Quotas(index, { defaults: { ...QUOTAS.noLimits, hosts: 5 }, metricTopN: 10 }),
  );
  for (let i = 0; i < count; i++) {
    const data = {
      name: `l${fromHour}-${i}`,
      startDate: at(fromHour + i),
      endDate: at(fromHour + i + 1),
      beforeEndDate: null,
      reservations: [oneHost],
    };
    await use.create({ type: 'CreateLease', data, metadata: member(i % 2 === 0 ? 'project-a' : 'project-b') });
  }
};

const view = (index: QuotaIndex) => ({
  projects: index.projects().sort(),
  holdings: index
    .projects()
    .sort()
    .map((project) =>
      index
        .holdings(project)
        .map((h) => [h.leaseId, h.start, h.end, h.amounts])
        .sort(),
    ),
  quotas: index
    .projects()
    .sort()
    .map((project) => index.quota(project)),
});

describe('the quota index from its snapshot', () => {
  it('restored from the snapshot and the events after it holds what a fold of the whole log holds', async () => {
    const live = (await openQuotaIndex(store, snapshots, CONFIG, () => undefined)).index;
    await leases(live, 10, 4);
    await live.catchUp();
    const written = live.capture();
    const atSnapshot = view(live);
    await snapshots.save({
      kind: QUOTA_INDEX_SNAPSHOT_KIND,
      schemaVersion: QUOTA_INDEX_SCHEMA_VERSION,
      position: written.position,
      payload: encodeState(written.payload),
    });
    await leases(live, 20, 3);

    const partial = new QuotaIndex(store);
    partial.restore(written.position, written.payload);
    expect(view(partial)).toEqual(atSnapshot);
    expect(view(partial).holdings.flat()).toHaveLength(4);

    const restored = await openQuotaIndex(store, snapshots, CONFIG, () => undefined);
    expect(restored.restored).toEqual({ position: written.position });
    const folded = new QuotaIndex(store);
    await folded.catchUp();
    expect(view(restored.index)).toEqual(view(folded));
    expect(view(folded).holdings.flat()).toHaveLength(7);
  });

  it('folds the whole log, and says why, when the snapshot is past the log head', async () => {
    await snapshots.save({
      kind: QUOTA_INDEX_SNAPSHOT_KIND,
      schemaVersion: QUOTA_INDEX_SCHEMA_VERSION,
      position: 1_000_000,
      payload: encodeState({ leases: [], spent: [], quotas: [] }),
    });
    const opened = await openQuotaIndex(store, snapshots, CONFIG, () => undefined);
    expect(opened.restored).toMatchObject({ reason: expect.stringContaining('past the log') as unknown });
  });

  it('keeps the leases that ended as their hours per month, from the month of the cutoff or of a running lease start, and decides the same', async () => {
    const index = new QuotaIndex(store);
    await leases(index, 10, 4);
    const long = { name: 'long', startDate: at(12), endDate: '2030-03-01T00:00:00.000Z', beforeEndDate: null, reservations: [oneHost] };
    let ids = 0;
    const context = {
      handler: new CommandHandler(store),
      index: new WriteIndex(store),
      settings: DEFAULT_SETTINGS,
      newId: () => `long-${++ids}`,
    };
    await new LeaseUseCases(context).create({ type: 'CreateLease', data: long, metadata: member('project-b') });
    // as the reactor would have: every lease began to start
    const started = (await store.readAll({ from: 0, limit: 1000 })).filter((e) => e.type === 'Lease.Created');
    await appendGiven(
      store,
      started.map((e) => ({
        streamId: e.streamId,
        type: 'Lease.StartRequested',
        data: { leaseId: e.streamId.slice('lease-'.length), at: at(10) },
      })),
    );
    const cutoff = Date.parse('2030-02-15T00:00:00.000Z');

    const opened = await openQuotaIndex(store, snapshots, CONFIG, () => undefined, { pastMs: 0, now: () => cutoff });
    // project-a's leases ended in January and nothing of it runs: gone; project-b's long lease runs since January: its January hours stay
    expect(opened.index.holdings('project-a')).toEqual([]);
    expect(opened.index.holdings('project-b').map((h) => h.leaseId)).toEqual(['long-1', 'spent-2030-01']);
    expect(opened.index.trackedLeases()).toBe(1);
    const whole = new QuotaIndex(store);
    await whole.catchUp();
    expect(whole.trackedLeases()).toBe(5);
    for (const project of ['project-a', 'project-b'])
      expect(quotaUse(QUOTAS, opened.index.holdings(project), cutoff)).toEqual(quotaUse(QUOTAS, whole.holdings(project), cutoff));
    // the long lease growing to two hosts: refused on January's host hours in both
    const before = whole.holdings('project-b').find((h) => h.leaseId === 'long-1');
    if (before === undefined) throw new Error('the long lease is tracked');
    const grow = (limit: number, from: QuotaIndex) =>
      quotaExcess(QUOTAS, {
        limits: { ...QUOTAS.noLimits, hostHoursPerMonth: limit },
        others: from.holdings('project-b', 'long-1'),
        before,
        after: { ...before, amounts: { ...before.amounts, hosts: 2 } },
        now: cutoff,
      });
    // January: 732 h on two hosts, and the 2 h of project-b's short leases
    for (const limit of [1000, 1465, 1466, 2000]) expect(grow(limit, opened.index)).toEqual(grow(limit, whole));
    expect([grow(1465, whole)?.month, grow(1466, whole)]).toEqual(['2030-01', null]);

    await opened.writer.stop();
    const restored = await openQuotaIndex(store, snapshots, CONFIG, () => undefined, { pastMs: 0, now: () => cutoff });
    expect(restored.restored).toEqual({ position: expect.any(Number) as number });
    expect(view(restored.index)).toEqual(view(opened.index));
  });
});
