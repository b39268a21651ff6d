import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type DueAction, type LeaseEvent, type Reservation, leaseStream } from '#domain/index.js';
import {
  at,
  created,
  endRequested,
  ended,
  history,
  reservation,
  startRequested,
  started,
  updateApplied,
} from '#domain/lease/testing/lease.fixtures.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { LeaseTimeline } from './lease-timeline.js';
import { Scheduler } from './scheduler.js';

const META = { correlationId: 'c', causationId: 'c', actor: null };

/** The fixture lease's events, as lease `leaseId`'s. */
const asLease = (leaseId: string, events: readonly LeaseEvent[]): LeaseEvent[] =>
  events.map((event) => ({ ...event, data: { ...event.data, leaseId } }) as LeaseEvent);

let store: SqliteEventStore;
let changes: number;
let timeline: LeaseTimeline;

const record = async (leaseId: string, events: readonly LeaseEvent[]): Promise<void> => {
  const revision = (await store.readStream(leaseStream(leaseId))).length - 1;
  await store.appendToStream(
    leaseStream(leaseId),
    revision,
    asLease(leaseId, events).map((event, index) => ({
      id: `${leaseId}-${revision + 1 + index}`,
      type: event.type,
      data: event.data,
      metadata: META,
    })),
  );
};

/** Delivers what the log holds past `from`, as the reactor's subscription does. */
const deliver = async (from: number): Promise<number> => {
  const events = await store.readAll({ from });
  await timeline.ingest(events);
  return events.at(-1)?.position ?? from;
};

beforeEach(() => {
  store = SqliteEventStore.open({ file: ':memory:' });
  changes = 0;
  timeline = new LeaseTimeline(store, () => changes++, 3);
});

afterEach(async () => {
  await store.close();
});

describe('LeaseTimeline', () => {
  it('remembers only the latest finished leases, however many have finished', async () => {
    for (const leaseId of ['l-1', 'l-2', 'l-3', 'l-4', 'l-5']) await record(leaseId, history.Ended());
    await record('l-6', history.Active());
    await deliver(0);
    expect(timeline.sizes()).toEqual({ leases: 1, finished: 3 });
    expect(timeline.queue.size).toBe(1);
    expect(timeline.queue.get('l-6')?.action.phase).toBe('before_end');
  });

  it('a later event of a finished lease it forgot is read with its stream, which shows it finished: nothing is due', async () => {
    for (const leaseId of ['l-1', 'l-2', 'l-3', 'l-4']) await record(leaseId, history.Ended());
    const position = await deliver(0);
    expect(timeline.sizes().finished).toBe(3);
    await record('l-1', [{ type: 'Lease.Renamed', data: { leaseId: 'l-1', name: 'renamed', renamedAt: at(19) } }]);
    await deliver(position);
    expect(timeline.queue.size).toBe(0);
    expect(timeline.get('l-1')).toBeUndefined();
    expect(timeline.sizes()).toEqual({ leases: 0, finished: 3 });
  });

  it('a later event of a finished lease it remembers changes nothing', async () => {
    await record('l-1', history.Ended());
    const position = await deliver(0);
    const before = changes;
    await record('l-1', [{ type: 'Lease.Renamed', data: { leaseId: 'l-1', name: 'renamed', renamedAt: at(19) } }]);
    await deliver(position);
    expect(changes).toBe(before);
    expect(timeline.sizes()).toEqual({ leases: 0, finished: 1 });
  });
});

describe("LeaseTimeline and Scheduler: an active lease's owed update and what it gives up", () => {
  /** Lease `healed` held host 7 from 10:00; at 12:00 healing moved it to host 8, an update the reactor owes the cloud. */
  const healedOffHost7: LeaseEvent[] = [
    created({ reservations: [reservation('res-1', { hostIds: ['7'] })] }),
    startRequested(),
    started(),
    {
      type: 'Reservation.Healed',
      data: {
        leaseId: 'healed',
        reservation: reservation('res-1', { hostIds: ['8'] }),
        replacements: [{ hostId: '7', by: ['8'] }],
        unhealedHostIds: [],
        missingResources: false,
        resourcesChanged: true,
        at: at(12),
      },
    },
  ];
  /** Host 7 came back and lease `taker` got it from 11:00 (a start "now" is the minute's start, before the healing's date). */
  const takerOfHost7: LeaseEvent[] = [created({ startDate: at(11), reservations: [reservation('res-2', { hostIds: ['7'] })] })];

  it('runs the update first and the start of a lease on the host it gives up only once its outcome is recorded, though that start is due first', async () => {
    await record('healed', healedOffHost7);
    await record('taker', takerOfHost7);
    const position = await deliver(0);
    const runs: { readonly action: DueAction; readonly finish: () => void }[] = [];
    const run = (action: DueAction): Promise<string> => new Promise((resolve) => runs.push({ action, finish: () => resolve('done') }));
    const scheduler = new Scheduler({
      queue: timeline.queue,
      clock: () => new Date(at(13)),
      monotonic: () => 0,
      run,
      log: () => undefined,
    });
    const ran = (): string[] => runs.map(({ action }) => `${action.leaseId}:${action.phase}`);

    scheduler.start();
    expect(timeline.queue.dueBy(Date.parse(at(13))).map((entry) => entry.action.leaseId)).toEqual(['taker', 'healed']);
    expect(ran()).toEqual(['healed:update']);

    await record('healed', [updateApplied('res-1', 1, at(13))]);
    await deliver(position);
    runs[0]?.finish();
    await vi.waitFor(() => expect(ran()).toEqual(['healed:update', 'taker:start']));
    runs[1]?.finish();
    await scheduler.stop();
  });
});

describe('LeaseTimeline and Scheduler: back-to-back leases on one network segment', () => {
  const onSegment = (id: string): Reservation => ({
    id,
    resourceId: `resource-${id}`,
    resourceType: 'network',
    networkName: `net-${id}`,
    networkDescription: '',
    networkProperties: '',
    resourceProperties: '',
    beforeEnd: 'default',
    allocations: [{ networkId: 'segment-150', networkType: 'vlan', physicalNetwork: 'physnet1', segmentId: 150 }],
  });

  it("runs the next lease's start only once the end that removes the network on its segment has run", async () => {
    await record('first', [created({ beforeEndDate: null, reservations: [onSegment('res-a')] }), startRequested(), started()]);
    await record('next', [created({ startDate: at(18), endDate: at(20), beforeEndDate: null, reservations: [onSegment('res-b')] })]);
    const position = await deliver(0);
    const runs: { readonly action: DueAction; readonly finish: () => void }[] = [];
    const run = (action: DueAction): Promise<string> => new Promise((resolve) => runs.push({ action, finish: () => resolve('done') }));
    const scheduler = new Scheduler({
      queue: timeline.queue,
      clock: () => new Date(at(18)),
      monotonic: () => 0,
      run,
      log: () => undefined,
    });
    const ran = (): string[] => runs.map(({ action }) => `${action.leaseId}:${action.phase}`);

    scheduler.start();
    await vi.waitFor(() => expect(ran()).toEqual(['first:end']));
    // the segment's network is still being torn down: the start that would make the next one waits
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ran()).toEqual(['first:end']);
    await record('first', [endRequested('scheduled', at(18)), ended(at(18))]);
    await deliver(position);
    runs[0]?.finish();
    await vi.waitFor(() => expect(ran()).toEqual(['first:end', 'next:start']));
    runs[1]?.finish();
    await scheduler.stop();
  });
});
