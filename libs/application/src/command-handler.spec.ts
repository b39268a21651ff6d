import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventStore } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { CommandHandler, type Decision } from './command-handler.js';
import { guardOf } from './command.js';

const META = { correlationId: 'c', causationId: 'c', actor: null };

/** A decision that appends one event named `id` to `streamId` under `expectedRevision`, answering `id`. */
const appendOne = (streamId: string, expectedRevision: number, id: string): Decision<string> => ({
  appends: [{ streamId, expectedRevision, events: [{ id, type: 'Test.Happened', data: { id }, metadata: META }] }],
  result: id,
});

/** The real store, counting the appends that reach it (how many commits the decisions cost). */
const counting = (store: EventStore): { readonly store: EventStore; readonly appends: () => number } => {
  let appends = 0;
  const counted = new Proxy(store, {
    get: (target, key) => {
      const value: unknown = Reflect.get(target, key);
      if (key === 'appendMultiple') appends++;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: counted, appends: () => appends };
};

let store: SqliteEventStore;

beforeEach(() => {
  store = SqliteEventStore.open({ file: ':memory:' });
});

afterEach(async () => {
  await store.close();
});

const revisionOf = async (streamId: string): Promise<number> => (await store.readStream(streamId)).length - 1;

describe('CommandHandler.handleOnStream', () => {
  it('writes the decisions on different streams asked while the lock is held in one append', async () => {
    const { store: counted, appends } = counting(store);
    const handler = new CommandHandler(counted);
    const handled = await Promise.all(
      ['s-1', 's-2', 's-3'].map((streamId) => handler.handleOnStream(streamId, () => appendOne(streamId, -1, `${streamId}-e`))),
    );
    expect(handled.map((h) => h.result)).toEqual(['s-1-e', 's-2-e', 's-3-e']);
    expect(handled.every((h) => h.position > 0 && !h.replayed)).toBe(true);
    expect(appends()).toBe(1);
    expect((await store.readAll({ from: 0 })).map((event) => event.id)).toEqual(['s-1-e', 's-2-e', 's-3-e']);
  });

  it('decides a second decision on a stream of the batch in the next one, on the state the first wrote', async () => {
    const { store: counted, appends } = counting(store);
    const handler = new CommandHandler(counted);
    const decide = (id: string) => async (): Promise<Decision<string>> => appendOne('s-1', await revisionOf('s-1'), id);
    const handled = await Promise.all([handler.handleOnStream('s-1', decide('first')), handler.handleOnStream('s-1', decide('second'))]);
    expect(handled.map((h) => h.result)).toEqual(['first', 'second']);
    expect(appends()).toBe(2);
    expect((await store.readStream('s-1')).map((event) => [event.id, event.revision])).toEqual([
      ['first', 0],
      ['second', 1],
    ]);
  });

  it('takes each decision of a batch again on its own when one of them was decided on a stale revision', async () => {
    await store.appendToStream('s-2', -1, [{ id: 'someone-else', type: 'Test.Happened', data: {}, metadata: META }]);
    const handler = new CommandHandler(store);
    const decided: string[] = [];
    const decide = (streamId: string) => async (): Promise<Decision<string>> => {
      // the first decision on s-2 believes the stream is still empty
      const revision = streamId === 's-2' && !decided.includes(streamId) ? -1 : await revisionOf(streamId);
      decided.push(streamId);
      return appendOne(streamId, revision, `${streamId}-e`);
    };
    const handled = await Promise.all(['s-1', 's-2'].map((streamId) => handler.handleOnStream(streamId, decide(streamId))));
    expect(handled.map((h) => h.result)).toEqual(['s-1-e', 's-2-e']);
    // s-1's decision is written as first taken, s-2's taken again on the stream as it is
    expect(decided).toEqual(['s-1', 's-2', 's-2']);
    expect((await store.readStream('s-2')).map((event) => [event.id, event.revision])).toEqual([
      ['someone-else', 0],
      ['s-2-e', 1],
    ]);
    expect((await store.readStream('s-1')).map((event) => event.id)).toEqual(['s-1-e']);
  });

  it('rejects only the caller whose decision failed; the others of its batch are written', async () => {
    const handler = new CommandHandler(store);
    const failing = handler.handleOnStream('s-1', () => {
      throw new Error('no such lease');
    });
    const fine = handler.handleOnStream('s-2', () => appendOne('s-2', -1, 's-2-e'));
    await expect(failing).rejects.toThrow('no such lease');
    expect((await fine).result).toBe('s-2-e');
    expect((await store.readAll({ from: 0 })).map((event) => event.id)).toEqual(['s-2-e']);
  });

  it('tells each decision of a batch whose events were all recorded already that it was a replay', async () => {
    const handler = new CommandHandler(store);
    await Promise.all(['s-1', 's-2'].map((streamId) => handler.handleOnStream(streamId, () => appendOne(streamId, -1, `${streamId}-e`))));
    const again = await Promise.all(
      ['s-1', 's-2'].map((streamId) => handler.handleOnStream(streamId, () => appendOne(streamId, -1, `${streamId}-e`))),
    );
    expect(again.map((h) => h.replayed)).toEqual([true, true]);
    expect(await store.readAll({ from: 0 })).toHaveLength(2);
  });

  it('answers a decision that writes nothing without an append', async () => {
    const { store: counted, appends } = counting(store);
    const handler = new CommandHandler(counted);
    const handled = await Promise.all([
      handler.handleOnStream('s-1', () => ({ appends: [], result: 'nothing' })),
      handler.handleOnStream('s-2', () => ({ appends: [], result: 'nothing' })),
    ]);
    expect(handled).toEqual([
      { result: 'nothing', position: 0, replayed: false },
      { result: 'nothing', position: 0, replayed: false },
    ]);
    expect(appends()).toBe(0);
  });
});

describe('CommandHandler.handle with a guard', () => {
  it('writes the decision while the guarded stream is where it was read, and decides again once it moved', async () => {
    const handler = new CommandHandler(store);
    await store.appendToStream('guarded', 'no_stream', [{ id: 'g-0', type: 'Test.Happened', data: {}, metadata: META }]);
    let attempts = 0;
    const decide = async (): Promise<Decision<number>> => {
      attempts++;
      const revision = await revisionOf('guarded');
      // another process moves the guarded stream after the first decision read it
      if (attempts === 1) await store.appendToStream('guarded', 0, [{ id: 'g-1', type: 'Test.Happened', data: {}, metadata: META }]);
      return { appends: [...appendOne(`s-${attempts}`, -1, `e-${attempts}`).appends, guardOf('guarded', revision)], result: revision };
    };
    const handled = await handler.handle(decide);
    expect([attempts, handled.result]).toEqual([2, 1]);
    expect((await store.readAll({ from: 0 })).map((event) => event.id)).toEqual(['g-0', 'g-1', 'e-2']);
  });

  it('appends nothing for a decision of guards only, wherever the guarded stream stands', async () => {
    const { store: counted, appends } = counting(store);
    const handler = new CommandHandler(counted);
    const handled = await handler.handle(() => ({ appends: [guardOf('guarded', 3)], result: 'nothing' }));
    expect(handled).toEqual({ result: 'nothing', position: 0, replayed: false });
    expect(appends()).toBe(0);
  });
});
