import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type LeaseEvent, leaseStream } from '#domain/index.js';
import { at, history } from '#domain/lease/testing/lease.fixtures.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { LeaseTimeline } from './lease-timeline.js';

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
    asLease(leaseId, events).map((event, index) => ({ id: `${leaseId}-${revision + 1 + index}`, type: event.type, data: event.data, metadata: META })),
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
