import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IdempotencyConflictError,
  WrongExpectedRevisionError,
  type EventData,
  type EventMetadata,
  type EventStore,
  type FoldableEvent,
  type RecordedEvent,
  type Subscription,
} from '../event-store.port.js';
import { EventVersionTooNewError, STORED_EVENT_VERSIONS, upcast } from '../event-versions.js';
import { HOSTILE_STRINGS } from './hostile-strings.js';

export interface EventStoreFixture {
  readonly store: EventStore;
  readonly cleanup: () => Promise<void>;
  /** Sets the stored version of an event, as another release would have written it (where the test can reach the rows). */
  readonly storeAtVersion?: (eventId: string, version: number) => Promise<void>;
}

const WAIT_TIMEOUT_MS = 10_000;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Polls a condition instead of sleeping a fixed time. */
export async function waitFor(predicate: () => boolean, timeoutMs = WAIT_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const uniqueSuffix = (): string => randomUUID().replaceAll('-', '');
/** A category nobody else uses, so category filters see only this test's events. */
const uniqueCategory = (): string => `ct${uniqueSuffix()}`;
const streamIn = (category: string): string => `${category}-${randomUUID()}`;
const newStream = (): string => streamIn(uniqueCategory());

const metadata = (extra: Partial<EventMetadata> = {}): EventMetadata => ({
  correlationId: randomUUID(),
  causationId: randomUUID(),
  actor: null,
  ...extra,
});

const event = (type = 'ContractTested', data: unknown = { n: 0 }): EventData => ({
  id: randomUUID(),
  type,
  data,
  metadata: metadata(),
});

const events = (count: number, type = 'ContractTested'): EventData[] => Array.from({ length: count }, (_, n) => event(type, { n }));

const positions = (recorded: readonly RecordedEvent[]): number[] => recorded.map((e) => e.position);
const ids = (recorded: readonly { readonly id: string }[]): string[] => recorded.map((e) => e.id);

const expectStrictlyIncreasing = (values: readonly number[]): void => {
  values.slice(1).forEach((value, index) => expect(value).toBeGreaterThan(values[index] ?? Number.POSITIVE_INFINITY));
};

/** Collects everything a subscription delivers. */
class Collector {
  readonly received: RecordedEvent[] = [];
  batches = 0;
  readonly onEvents = async (batch: readonly RecordedEvent[]): Promise<void> => {
    this.batches += 1;
    this.received.push(...batch);
  };
}

/** Resolves once an event with this id has been delivered by a fresh subscription, proving it is visible. */
async function waitUntilVisible(store: EventStore, category: string, eventId: string): Promise<void> {
  const probe = new Collector();
  const subscription = store.subscribeToAll({ from: 0, filter: { categories: [category] }, onEvents: probe.onEvents });
  try {
    await waitFor(() => ids(probe.received).includes(eventId));
  } finally {
    await subscription.stop();
  }
}

/**
 * Promises an adapter cannot keep, each named with the reason, so that its run shows them as skipped
 * rather than hiding them. Only for a store whose server cannot give the guarantee (KurrentDB).
 */
export interface ContractGaps {
  /** Why an append whose ids are already stored, but whose expected revision still holds, is not recognised. */
  readonly storedIdsUnderHeldRevision?: string;
}

/**
 * The behaviour every EventStore adapter must show. The store may be shared and non-empty. Reads
 * start after 0 or after a position the store handed out (KurrentDB cannot start between events).
 */
export function eventStoreContract(name: string, factory: () => Promise<EventStoreFixture>, gaps: ContractGaps = {}): void {
  const gap = gaps.storedIdsUnderHeldRevision;
  const titled = (title: string): string => (gap === undefined ? title : `${title} (gap: ${gap})`);
  describe(`EventStore contract: ${name}`, () => {
    let fixture: EventStoreFixture | undefined;
    const store = (): EventStore => {
      if (!fixture) throw new Error('store not initialised');
      return fixture.store;
    };

    beforeAll(async () => {
      fixture = await factory();
    });

    afterAll(async () => {
      await fixture?.cleanup();
    });

    describe('expected revision', () => {
      it('appends to a new stream with no_stream', async () => {
        const streamId = newStream();
        const result = await store().appendToStream(streamId, 'no_stream', events(2));
        expect(result.idempotentReplay).toBe(false);
        expect(result.streams).toEqual([{ streamId, nextRevision: 1 }]);
        expect(result.position).toBeGreaterThan(0);
        expect(await store().streamRevision(streamId)).toBe(1);
      });

      it('rejects no_stream on an existing stream and writes nothing', async () => {
        const streamId = newStream();
        await store().appendToStream(streamId, 'no_stream', events(1));
        const attempt = store().appendToStream(streamId, 'no_stream', events(1));
        await expect(attempt).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        await expect(attempt).rejects.toMatchObject({ streamId, expected: 'no_stream', actual: 0 });
        expect(await store().readStream(streamId)).toHaveLength(1);
      });

      it('accepts the exact current revision and rejects any other', async () => {
        const streamId = newStream();
        await store().appendToStream(streamId, 'no_stream', events(2));
        const ok = await store().appendToStream(streamId, 1, events(1));
        expect(ok.streams).toEqual([{ streamId, nextRevision: 2 }]);
        await expect(store().appendToStream(streamId, 1, events(1))).rejects.toMatchObject({
          name: 'WrongExpectedRevisionError',
          expected: 1,
          actual: 2,
        });
        await expect(store().appendToStream(streamId, 3, events(1))).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        expect(await store().streamRevision(streamId)).toBe(2);
      });

      it('rejects an exact revision on a missing stream', async () => {
        const streamId = newStream();
        await expect(store().appendToStream(streamId, 0, events(1))).rejects.toMatchObject({ actual: -1 });
        expect(await store().readStream(streamId)).toEqual([]);
      });

      it('stream_exists fails on a missing stream and succeeds on an existing one', async () => {
        const streamId = newStream();
        await expect(store().appendToStream(streamId, 'stream_exists', events(1))).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        await store().appendToStream(streamId, 'no_stream', events(1));
        const result = await store().appendToStream(streamId, 'stream_exists', events(1));
        expect(result.streams).toEqual([{ streamId, nextRevision: 1 }]);
      });

      it('any appends whether or not the stream exists', async () => {
        const streamId = newStream();
        await store().appendToStream(streamId, 'any', events(1));
        const result = await store().appendToStream(streamId, 'any', events(2));
        expect(result.streams).toEqual([{ streamId, nextRevision: 2 }]);
      });

      it('lets exactly one of several concurrent appends with the same expected revision win', async () => {
        const streamId = newStream();
        await store().appendToStream(streamId, 'no_stream', events(1));
        const attempts = await Promise.allSettled(Array.from({ length: 6 }, () => store().appendToStream(streamId, 0, events(1))));
        const fulfilled = attempts.filter((attempt) => attempt.status === 'fulfilled');
        const rejected = attempts.filter((attempt): attempt is PromiseRejectedResult => attempt.status === 'rejected');
        expect(fulfilled).toHaveLength(1);
        expect(rejected).toHaveLength(5);
        rejected.forEach((attempt) => expect(attempt.reason).toBeInstanceOf(WrongExpectedRevisionError));
        expect(await store().readStream(streamId)).toHaveLength(2);
      });
    });

    describe('revisions and positions', () => {
      it('numbers revisions from 0 without gaps across appends', async () => {
        const streamId = newStream();
        await store().appendToStream(streamId, 'no_stream', events(3));
        await store().appendToStream(streamId, 2, events(2));
        const recorded = await store().readStream(streamId);
        expect(recorded.map((e) => e.revision)).toEqual([0, 1, 2, 3, 4]);
      });

      it('gives strictly increasing positions that are global across streams', async () => {
        const first = newStream();
        const second = newStream();
        const a = await store().appendToStream(first, 'no_stream', events(2));
        const b = await store().appendToStream(second, 'no_stream', events(2));
        const c = await store().appendToStream(first, 1, events(1));
        expect(b.position).toBeGreaterThan(a.position);
        expect(c.position).toBeGreaterThan(b.position);
        const firstEvents = await store().readStream(first);
        const secondEvents = await store().readStream(second);
        expectStrictlyIncreasing(positions(firstEvents));
        expect(positions(secondEvents).every((p) => p > a.position && p < c.position)).toBe(true);
        expect(firstEvents.at(-1)?.position).toBe(c.position);
        expect(new Set([...positions(firstEvents), ...positions(secondEvents)]).size).toBe(5);
      });

      it('reads a stream in order, optionally from a revision', async () => {
        const streamId = newStream();
        const written = events(4);
        await store().appendToStream(streamId, 'no_stream', written);
        const all = await store().readStream(streamId);
        expect(ids(all)).toEqual(ids(written));
        expect(all.every((e) => e.streamId === streamId)).toBe(true);
        const tail = await store().readStream(streamId, { fromRevision: 2 });
        expect(tail.map((e) => e.revision)).toEqual([2, 3]);
        expect(ids(tail)).toEqual(ids(written.slice(2)));
        expect(await store().readStream(streamId, { fromRevision: 4 })).toEqual([]);
      });

      it('reports an unknown stream as empty with revision -1', async () => {
        const streamId = newStream();
        expect(await store().readStream(streamId)).toEqual([]);
        expect(await store().streamRevision(streamId)).toBe(-1);
      });

      it('round-trips type and data', async () => {
        const streamId = newStream();
        const data = { text: 'héllo', list: [1, 2.5, null], nested: { flag: true } };
        await store().appendToStream(streamId, 'no_stream', [event('SomethingHappened', data)]);
        const [recorded] = await store().readStream(streamId);
        expect(recorded?.type).toBe('SomethingHappened');
        expect(recorded?.data).toEqual(data);
      });
    });

    describe('appendMultiple', () => {
      it('returns the next revision of every stream', async () => {
        const first = newStream();
        const second = newStream();
        await store().appendToStream(second, 'no_stream', events(2));
        const result = await store().appendMultiple([
          { streamId: first, expectedRevision: 'no_stream', events: events(3) },
          { streamId: second, expectedRevision: 1, events: events(1) },
        ]);
        expect(result.idempotentReplay).toBe(false);
        expect(result.streams).toEqual([
          { streamId: first, nextRevision: 2 },
          { streamId: second, nextRevision: 2 },
        ]);
        const secondEvents = await store().readStream(second);
        expect(result.position).toBe(secondEvents.at(-1)?.position);
      });

      it('writes nothing to any stream when one expected revision is wrong', async () => {
        const first = newStream();
        const second = newStream();
        const third = newStream();
        await store().appendToStream(third, 'no_stream', events(1));
        const attempt = store().appendMultiple([
          { streamId: first, expectedRevision: 'no_stream', events: events(1) },
          { streamId: second, expectedRevision: 'any', events: events(2) },
          { streamId: third, expectedRevision: 'no_stream', events: events(1) },
        ]);
        await expect(attempt).rejects.toMatchObject({ name: 'WrongExpectedRevisionError', streamId: third });
        expect(await store().readStream(first)).toEqual([]);
        expect(await store().readStream(second)).toEqual([]);
        expect(await store().streamRevision(third)).toBe(0);
      });

      it('checks the revision of a request without events and writes nothing for it', async () => {
        const guarded = newStream();
        const written = newStream();
        await store().appendToStream(guarded, 'no_stream', events(2));
        await expect(
          store().appendMultiple([
            { streamId: guarded, expectedRevision: 0, events: [] },
            { streamId: written, expectedRevision: 'no_stream', events: events(1) },
          ]),
        ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        expect(await store().readStream(written)).toEqual([]);
        const result = await store().appendMultiple([
          { streamId: guarded, expectedRevision: 1, events: [] },
          { streamId: written, expectedRevision: 'no_stream', events: events(1) },
        ]);
        expect(result.streams).toEqual([
          { streamId: guarded, nextRevision: 1 },
          { streamId: written, nextRevision: 0 },
        ]);
        expect(await store().readStream(guarded)).toHaveLength(2);
      });

      it('rejects the same stream twice in one call', async () => {
        const streamId = newStream();
        await expect(
          store().appendMultiple([
            { streamId, expectedRevision: 'no_stream', events: events(1) },
            { streamId, expectedRevision: 'any', events: events(1) },
          ]),
        ).rejects.toThrow(Error);
        expect(await store().readStream(streamId)).toEqual([]);
      });
    });

    describe('idempotency by event id', () => {
      it('replays a single-stream append without writing', async () => {
        const streamId = newStream();
        const written = events(2);
        const original = await store().appendToStream(streamId, 'no_stream', written);
        const replay = await store().appendToStream(streamId, 'no_stream', written);
        expect(replay).toEqual({ streams: [{ streamId, nextRevision: 1 }], position: original.position, idempotentReplay: true });
        expect(ids(await store().readStream(streamId))).toEqual(ids(written));
      });

      it('replays a multi-stream append without writing', async () => {
        const first = newStream();
        const second = newStream();
        const requests = [
          { streamId: first, expectedRevision: 'no_stream' as const, events: events(2) },
          { streamId: second, expectedRevision: 'no_stream' as const, events: events(1) },
        ];
        const original = await store().appendMultiple(requests);
        await store().appendToStream(first, 1, events(1));
        const replay = await store().appendMultiple(requests);
        expect(replay.idempotentReplay).toBe(true);
        expect(replay.position).toBe(original.position);
        expect(replay.streams).toEqual([
          { streamId: first, nextRevision: 2 },
          { streamId: second, nextRevision: 0 },
        ]);
        expect(await store().readStream(first)).toHaveLength(3);
        expect(await store().readStream(second)).toHaveLength(1);
      });

      it.skipIf(gap !== undefined)(titled('rejects a partial overlap of ids and writes nothing'), async () => {
        const streamId = newStream();
        const [stored, fresh] = events(2) as [EventData, EventData];
        await store().appendToStream(streamId, 'no_stream', [stored]);
        await expect(store().appendToStream(streamId, 0, [stored, fresh])).rejects.toBeInstanceOf(IdempotencyConflictError);
        expect(ids(await store().readStream(streamId))).toEqual([stored.id]);
      });

      it.skipIf(gap !== undefined)(titled('rejects ids that are stored in another stream'), async () => {
        const first = newStream();
        const second = newStream();
        const written = events(1);
        await store().appendToStream(first, 'no_stream', written);
        await expect(store().appendToStream(second, 'any', written)).rejects.toBeInstanceOf(IdempotencyConflictError);
        expect(await store().readStream(second)).toEqual([]);
      });
    });

    describe('metadata', () => {
      it('round-trips metadata exactly, including extra keys', async () => {
        const streamId = newStream();
        const meta = metadata({
          actor: { userId: 'user-1', projectId: 'project-1' },
          requestId: 'req-42',
          reason: { code: 7, tags: ['a', 'b'] },
        });
        const system = metadata();
        await store().appendToStream(streamId, 'no_stream', [
          { ...event(), metadata: meta },
          { ...event(), metadata: system },
        ]);
        const recorded = await store().readStream(streamId);
        expect(recorded.map((e) => e.metadata)).toEqual([meta, system]);
      });

      it('stamps one ISO-8601 UTC recordedAt on every event of an append', async () => {
        const streamId = newStream();
        const before = Date.now();
        await store().appendToStream(streamId, 'no_stream', events(3));
        const recorded = await store().readStream(streamId);
        const stamps = new Set(recorded.map((e) => e.recordedAt));
        expect(stamps.size).toBe(1);
        const [stamp] = [...stamps];
        expect(stamp).toMatch(ISO_UTC);
        expect(Number.isNaN(Date.parse(stamp ?? ''))).toBe(false);
        expect(Date.parse(stamp ?? '')).toBeGreaterThan(before - 24 * 3600_000);
      });
    });

    describe('readAll and headPosition', () => {
      it('reads after an exclusive position, ascending, with a limit', async () => {
        const streamId = newStream();
        const { position: from } = await store().appendToStream(newStream(), 'no_stream', events(1));
        const { position } = await store().appendToStream(streamId, 'no_stream', events(3));
        const [first] = await store().readStream(streamId);
        const page = await store().readAll({ from, limit: 2 });
        expect(page).toHaveLength(2);
        expect(page[0]?.id).toBe(first?.id);
        expectStrictlyIncreasing(positions(page));
        expect(page.every((e) => e.position > from)).toBe(true);
        const rest = await store().readAll({ from: position });
        expect(rest.every((e) => e.position > position)).toBe(true);
      });

      it('filters by category', async () => {
        const category = uniqueCategory();
        const ours = streamIn(category);
        const alsoOurs = streamIn(category);
        const other = newStream();
        await store().appendToStream(ours, 'no_stream', events(2));
        await store().appendToStream(other, 'no_stream', events(2));
        await store().appendToStream(alsoOurs, 'no_stream', events(1));
        await store().appendToStream(ours, 1, events(1));
        const recorded = await store().readAll({ from: 0, filter: { categories: [category] } });
        expect(recorded.map((e) => e.streamId)).toEqual([ours, ours, alsoOurs, ours]);
        expectStrictlyIncreasing(positions(recorded));
        const afterFirst = await store().readAll({ from: recorded[0]?.position ?? 0, limit: 2, filter: { categories: [category] } });
        expect(ids(afterFirst)).toEqual(ids(recorded.slice(1, 3)));
      });

      it('filters by type and by category and type together', async () => {
        const type = `Typed${uniqueSuffix()}`;
        const category = uniqueCategory();
        const inCategory = streamIn(category);
        const elsewhere = newStream();
        await store().appendToStream(inCategory, 'no_stream', [event(type), event('Other'), event(type)]);
        await store().appendToStream(elsewhere, 'no_stream', [event(type)]);
        const byType = await store().readAll({ from: 0, filter: { types: [type] } });
        expect(byType.map((e) => e.streamId)).toEqual([inCategory, inCategory, elsewhere]);
        const both = await store().readAll({ from: 0, filter: { categories: [category], types: [type] } });
        expect(both.map((e) => e.revision)).toEqual([0, 2]);
      });

      it('reads a filter on several categories and types a page at a time, in position order, as one read of the whole filter gives it', async () => {
        const [first, second, third] = [uniqueCategory(), uniqueCategory(), uniqueCategory()];
        const [typeA, typeB, typeC] = ['A', 'B', 'C'].map((letter) => `Paged${letter}${uniqueSuffix()}`) as [string, string, string];
        const streams = [streamIn(first), streamIn(second), streamIn(third), streamIn(first), newStream()];
        const revisions = new Map<string, number>();
        // interleaved: each stream gets a run of uneven length of the three types, round after round
        for (let round = 0; round < 6; round++) {
          for (const [i, stream] of streams.entries()) {
            const batch = Array.from({ length: 1 + ((round + i) % 3) }, (_, k) =>
              event([typeA, typeB, typeC][(round + i + k) % 3], { round, k }),
            );
            const revision = revisions.get(stream);
            await store().appendToStream(stream, revision === undefined ? 'no_stream' : revision, batch);
            revisions.set(stream, (revision ?? -1) + batch.length);
          }
        }
        const filters = [
          { categories: [first, second] },
          { categories: [third, second, first] },
          { types: [typeC, typeA] },
          { categories: [first, third], types: [typeA, typeB] },
          { categories: [second], types: [typeB, typeC] },
          { categories: [third, first], types: [typeC] },
          // a value named twice is read once: a page is still full
          { categories: [first, second, first] },
          { types: [typeA, typeA, typeB] },
        ];
        for (const filter of filters) {
          const whole = await store().readAll({ from: 0, filter });
          expect(whole.length).toBeGreaterThan(3);
          expectStrictlyIncreasing(positions(whole));
          const categoryOf = (e: RecordedEvent): string => e.streamId.slice(0, e.streamId.indexOf('-'));
          expect(whole.every((e) => filter.categories?.includes(categoryOf(e)) ?? true)).toBe(true);
          expect(whole.every((e) => filter.types?.includes(e.type) ?? true)).toBe(true);
          for (const limit of [1, 2, 5]) {
            const paged: RecordedEvent[] = [];
            for (let from = 0; ;) {
              const page = await store().readAll({ from, limit, filter });
              expect(page.length).toBeLessThanOrEqual(limit);
              if (page.length === 0) break;
              paged.push(...page);
              from = page.at(-1)?.position ?? from;
            }
            expect(ids(paged)).toEqual(ids(whole));
          }
          // a page starting in the middle: the events after that position, no more than the limit
          const middle = whole[2]?.position ?? 0;
          expect(ids(await store().readAll({ from: middle, limit: 3, filter }))).toEqual(ids(whole.slice(3, 6)));
        }
      });

      it('reports the newest position as head', async () => {
        const before = await store().headPosition();
        const streamId = newStream();
        const { position } = await store().appendToStream(streamId, 'no_stream', events(2));
        const after = await store().headPosition();
        expect(position).toBeGreaterThan(before);
        expect(after).toBeGreaterThanOrEqual(position);
        const [firstOfTwo] = await store().readStream(streamId);
        const [newest] = await store().readAll({ from: firstOfTwo?.position ?? 0 });
        expect(newest?.position).toBe(after);
      });
    });

    describe('readAllFoldable', () => {
      /** What readAll gives, less what readAllFoldable may leave out (a store may also return it whole). */
      const foldable = ({ position, type, data }: FoldableEvent): FoldableEvent => ({ position, type, data });

      it("reads what readAll reads, in the same pages, each event's position, type and data, with and without filters", async () => {
        const category = uniqueCategory();
        const type = `Foldable${uniqueSuffix()}`;
        const { position: from } = await store().appendToStream(newStream(), 'no_stream', events(1));
        const ours = streamIn(category);
        await store().appendToStream(ours, 'no_stream', [
          event(type, { n: 1 }),
          event('Other', { n: 2 }),
          event(type, { nested: { list: [1, 'two'] } }),
        ]);
        await store().appendToStream(newStream(), 'no_stream', [event(type, { n: 4 })]);
        await store().appendToStream(streamIn(uniqueCategory()), 'no_stream', events(2));
        const reads = [
          { from },
          { from, limit: 2 },
          { from: from + 1, limit: 3 },
          { from: 0, filter: { categories: [category] } },
          { from: 0, limit: 1, filter: { types: [type] } },
          { from: 0, filter: { categories: [category], types: [type] } },
          { from, limit: 2, filter: { types: [type, 'Other'] } },
        ];
        for (const options of reads) {
          const whole = await store().readAll(options);
          expect(whole.length).toBeGreaterThan(0);
          expect((await store().readAllFoldable(options)).map(foldable)).toEqual(whole.map(foldable));
        }
      });

      it.each(HOSTILE_STRINGS)('reads $label in a type and data back exactly', async ({ value }) => {
        const streamId = `${value.replaceAll('-', '')}${uniqueSuffix()}-${value}`;
        const { position: previous } = await store().appendToStream(newStream(), 'no_stream', events(1));
        const { position } = await store().appendToStream(streamId, 'no_stream', [
          event(`Hostile${value}`, { text: value, [value]: [value] }),
        ]);
        const [read] = await store().readAllFoldable({ from: previous, limit: 1 });
        expect(read).toMatchObject({ position, type: `Hostile${value}`, data: { text: value, [value]: [value] } });
      });
    });

    describe('positionAt', () => {
      const shifted = (iso: string, ms: number): string => new Date(Date.parse(iso) + ms).toISOString();

      it('maps an instant to the newest position recorded at or before it', async () => {
        const streamId = newStream();
        await store().appendToStream(streamId, 'no_stream', events(2));
        const [first, second] = await store().readStream(streamId);
        if (first === undefined || second === undefined) throw new Error('appended events not read back');
        expect(await store().positionAt(second.recordedAt)).toBeGreaterThanOrEqual(second.position);
        expect(await store().positionAt(shifted(first.recordedAt, -1))).toBeLessThan(first.position);
        expect(await store().positionAt('2000-01-01T00:00:00.000Z')).toBe(0);
        expect(await store().positionAt(shifted(new Date().toISOString(), 3600_000))).toBe(await store().headPosition());
      });

      it('reads an instant written with an offset as the same instant in UTC', async () => {
        const streamId = newStream();
        await store().appendToStream(streamId, 'no_stream', events(1));
        const [recorded] = await store().readStream(streamId);
        const at = new Date(recorded?.recordedAt ?? '');
        const local = `${new Date(at.getTime() + 2 * 3600_000).toISOString().slice(0, -1)}+02:00`;
        expect(await store().positionAt(local)).toBe(await store().positionAt(at.toISOString()));
        expect(await store().positionAt(local)).toBeGreaterThanOrEqual(recorded?.position ?? Infinity);
      });
    });

    describe('hostile text', () => {
      // what the API's input rules refuse must still be stored and read back exactly, should one get through
      it.each(HOSTILE_STRINGS)('round-trips $label in ids, type, category, data and metadata', async ({ value }) => {
        const category = `${value.replaceAll('-', '')}${uniqueSuffix()}`;
        const streamId = `${category}-${value}`;
        const sent: EventData = {
          id: `${value}${uniqueSuffix()}`,
          type: `Hostile${value}`,
          data: { text: value, list: [value], [value]: value },
          metadata: metadata({ actor: { userId: value, projectId: value }, note: value }),
        };
        const { position: previous } = await store().appendToStream(newStream(), 'no_stream', events(1));
        const { position } = await store().appendToStream(streamId, 'no_stream', [sent]);
        const expected = { id: sent.id, streamId, revision: 0, position, type: sent.type, data: sent.data, metadata: sent.metadata };
        expect(await store().readStream(streamId)).toMatchObject([expected]);
        expect(await store().readAll({ from: previous, limit: 1 })).toMatchObject([expected]);
        expect(await store().readAll({ from: 0, filter: { categories: [category], types: [sent.type] } })).toMatchObject([expected]);
        expect(await store().streamRevision(streamId)).toBe(0);
        if (gap === undefined) expect((await store().appendToStream(streamId, 0, [sent])).idempotentReplay).toBe(true);
        else expect((await store().appendToStream(streamId, 'no_stream', [sent])).idempotentReplay).toBe(true);
      });

      it('keeps apart stream ids that differ only in a lone surrogate or a NUL', async () => {
        const base = newStream();
        const variants = [`${base}\ud800`, `${base}\ud801`, `${base}\udc00`, `${base}\ufffd`, `${base}\u0000`, `${base}\u00010`, base];
        for (const streamId of variants) await store().appendToStream(streamId, 'no_stream', [event('Variant', { streamId })]);
        for (const streamId of variants) {
          const recorded = await store().readStream(streamId);
          expect(recorded.map((e) => [e.streamId, e.data])).toEqual([[streamId, { streamId }]]);
        }
      });
    });

    describe('subscribeToAll', () => {
      const subscriptions: Subscription[] = [];
      const subscribe = (...args: Parameters<EventStore['subscribeToAll']>): Subscription => {
        const subscription = store().subscribeToAll(...args);
        subscriptions.push(subscription);
        return subscription;
      };

      afterAll(async () => {
        await Promise.all(subscriptions.map((subscription) => subscription.stop()));
      });

      it('catches up, then delivers live appends in order, honouring the filter', async () => {
        const category = uniqueCategory();
        const first = streamIn(category);
        const second = streamIn(category);
        const existing = events(3);
        await store().appendToStream(first, 'no_stream', existing);
        await store().appendToStream(newStream(), 'no_stream', events(2));
        const collector = new Collector();
        let deliveredAtCatchUp = -1;
        const subscription = subscribe({ from: 0, filter: { categories: [category] }, batchSize: 2, onEvents: collector.onEvents });
        await subscription.caughtUp.then(() => {
          deliveredAtCatchUp = collector.received.length;
        });
        expect(deliveredAtCatchUp).toBe(3);
        expect(ids(collector.received)).toEqual(ids(existing));

        const live = [...events(2), ...events(1)];
        await store().appendToStream(second, 'no_stream', live.slice(0, 2));
        await store().appendToStream(newStream(), 'no_stream', events(1));
        await store().appendToStream(first, 2, live.slice(2));
        await waitFor(() => collector.received.length >= 6);
        expect(ids(collector.received)).toEqual([...ids(existing), ...ids(live)]);
        expect(collector.received.every((e) => e.streamId.startsWith(`${category}-`))).toBe(true);
        expectStrictlyIncreasing(positions(collector.received));
        expect(subscription.lastPosition()).toBe(collector.received.at(-1)?.position);
      });

      it('catches up from a position, skipping what came before', async () => {
        const category = uniqueCategory();
        const streamId = streamIn(category);
        const written = events(4);
        await store().appendToStream(streamId, 'no_stream', written);
        const recorded = await store().readStream(streamId);
        const collector = new Collector();
        const subscription = subscribe({
          from: recorded[1]?.position ?? 0,
          filter: { categories: [category] },
          onEvents: collector.onEvents,
        });
        await subscription.caughtUp;
        expect(ids(collector.received)).toEqual(ids(written.slice(2)));
      });

      it('resolves caughtUp when there is nothing to deliver', async () => {
        const collector = new Collector();
        const subscription = subscribe({
          from: await store().headPosition(),
          filter: { categories: [uniqueCategory()] },
          onEvents: collector.onEvents,
        });
        await expect(subscription.caughtUp).resolves.toBeUndefined();
        expect(collector.received).toEqual([]);
        expect(subscription.lastPosition()).toBe(0);
      });

      it('stops delivering after stop()', async () => {
        const category = uniqueCategory();
        const streamId = streamIn(category);
        await store().appendToStream(streamId, 'no_stream', events(1));
        const collector = new Collector();
        const subscription = subscribe({ from: 0, filter: { categories: [category] }, onEvents: collector.onEvents });
        await subscription.caughtUp;
        await subscription.stop();
        const late = event();
        await store().appendToStream(streamId, 0, [late]);
        await waitUntilVisible(store(), category, late.id);
        expect(collector.received).toHaveLength(1);
      });

      it('lets the in-flight batch finish before stop() resolves', async () => {
        const category = uniqueCategory();
        await store().appendToStream(streamIn(category), 'no_stream', events(1));
        let release: () => void = () => undefined;
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        let started = false;
        let finished = false;
        const subscription = subscribe({
          from: 0,
          filter: { categories: [category] },
          onEvents: async () => {
            started = true;
            await gate;
            finished = true;
          },
        });
        await waitFor(() => started);
        let stopped = false;
        const stopping = subscription.stop().then(() => {
          stopped = true;
        });
        for (let turn = 0; turn < 5; turn++) await nextTurn();
        expect(stopped).toBe(false);
        release();
        await stopping;
        expect(finished).toBe(true);
      });

      it('can be stopped from inside onEvents', async () => {
        const category = uniqueCategory();
        const streamId = streamIn(category);
        await store().appendToStream(streamId, 'no_stream', events(1));
        let calls = 0;
        let stoppedInside = false;
        const subscription: Subscription = subscribe({
          from: 0,
          filter: { categories: [category] },
          onEvents: async () => {
            calls += 1;
            await subscription.stop();
            stoppedInside = true;
          },
        });
        await waitFor(() => stoppedInside);
        await subscription.stop();
        const late = event();
        await store().appendToStream(streamId, 0, [late]);
        await waitUntilVisible(store(), category, late.id);
        expect(calls).toBe(1);
      });

      it('stops and reports to onError when onEvents throws', async () => {
        const category = uniqueCategory();
        const streamId = streamIn(category);
        await store().appendToStream(streamId, 'no_stream', events(1));
        const failure = new Error('projection failed');
        const errors: unknown[] = [];
        let calls = 0;
        subscribe({
          from: 0,
          filter: { categories: [category] },
          onEvents: async () => {
            calls += 1;
            throw failure;
          },
          onError: (error) => errors.push(error),
        });
        await waitFor(() => errors.length > 0);
        expect(errors).toEqual([failure]);
        const late = event();
        await store().appendToStream(streamId, 0, [late]);
        await waitUntilVisible(store(), category, late.id);
        expect(calls).toBe(1);
        expect(errors).toHaveLength(1);
      });
    });

    describe('event versions', () => {
      /** A type whose shape changed (event-versions.ts), and data of its first version. */
      const [versionedType = '', versioned] = Object.entries(STORED_EVENT_VERSIONS)[0] ?? [];
      const firstVersionData = { note: 'stored before the shape changed' };

      const everyRead = async (category: string, streamId: string): Promise<unknown[]> => {
        const collector = new Collector();
        const subscription = store().subscribeToAll({ from: 0, filter: { categories: [category] }, onEvents: collector.onEvents });
        try {
          await waitFor(() => collector.received.length > 0);
        } finally {
          await subscription.stop();
        }
        const filter = { categories: [category] };
        return [
          ...(await store().readStream(streamId)),
          ...(await store().readAll({ from: 0, filter })),
          ...(await store().readAllFoldable({ from: 0, filter })),
          ...collector.received,
        ].map((recorded) => recorded.data);
      };

      it("stores an event at its type's current version: read back as written", async () => {
        expect(versioned?.current).toBeGreaterThan(1);
        const category = uniqueCategory();
        const streamId = streamIn(category);
        await store().appendToStream(streamId, 'no_stream', [event(versionedType, firstVersionData)]);
        expect(await everyRead(category, streamId)).toEqual(Array.from({ length: 4 }, () => firstVersionData));
      });

      it('reads an event of an older version at the current one, through its upcasters, on every read path', async ({ skip }) => {
        const storeAtVersion = fixture?.storeAtVersion;
        if (storeAtVersion === undefined) return skip("the test cannot rewrite this store's rows");
        const category = uniqueCategory();
        const streamId = streamIn(category);
        const older = event(versionedType, firstVersionData);
        await store().appendToStream(streamId, 'no_stream', [older]);
        await storeAtVersion(older.id, 1);
        const current = upcast(versionedType, 1, firstVersionData);
        expect(current).not.toEqual(firstVersionData);
        expect(await everyRead(category, streamId)).toEqual(Array.from({ length: 4 }, () => current));
      });

      it('refuses an event of a version newer than it knows, naming it', async ({ skip }) => {
        const storeAtVersion = fixture?.storeAtVersion;
        if (storeAtVersion === undefined) return skip("the test cannot rewrite this store's rows");
        const streamId = newStream();
        const newer = event(versionedType, firstVersionData);
        await store().appendToStream(streamId, 'no_stream', [newer]);
        const known = versioned?.current ?? 1;
        await storeAtVersion(newer.id, known + 1);
        try {
          const read = store().readStream(streamId);
          await expect(read).rejects.toBeInstanceOf(EventVersionTooNewError);
          await expect(read).rejects.toMatchObject({ type: versionedType, version: known + 1, known });
        } finally {
          await storeAtVersion(newer.id, known);
        }
      });
    });
  });
}
