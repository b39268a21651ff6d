import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '#domain/index.js';
import type { EventData, EventMetadata } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { CommandHandler, type Decision, MAX_ATTEMPTS } from './command-handler.js';

const STREAM = 'Counter-1';
const metadata: EventMetadata = { correlationId: 'c', causationId: 'c', actor: null };
const event = (type: string): EventData => ({ id: randomUUID(), type, data: {}, metadata });

/**
 * The one retry policy, on a real store: a decision whose stream moved on between its read and its
 * append is taken again on fresh state, MAX_ATTEMPTS times at most, then refused as a 409.
 */
describe('CommandHandler', () => {
  let store: SqliteEventStore;
  let handler: CommandHandler;
  /** Another process writing to the same store: its own handler, so its own lock. */
  let other: CommandHandler;

  beforeEach(() => {
    store = SqliteEventStore.open({ file: ':memory:' });
    handler = new CommandHandler(store);
    other = new CommandHandler(store);
  });

  afterEach(async () => {
    await store.close();
  });

  /** Reads the stream's revision, lets `interfere` run (a write elsewhere in between), then appends one event under what it read. */
  const decideAfter = (interfere: (attempt: number) => Promise<void>, seen: number[]) => async (): Promise<Decision<number>> => {
    const revision = await store.streamRevision(STREAM);
    seen.push(revision);
    await interfere(seen.length);
    return { appends: [{ streamId: STREAM, expectedRevision: revision, events: [event('Counted')] }], result: revision };
  };

  const interfering = async (): Promise<void> => {
    await other.handle(async () => ({
      appends: [{ streamId: STREAM, expectedRevision: await store.streamRevision(STREAM), events: [event('Interfered')] }],
      result: null,
    }));
  };

  it('decides again on fresh state when another writer moved the stream on between the read and the append', async () => {
    const seen: number[] = [];
    const handled = await handler.handle(decideAfter((attempt) => (attempt === 1 ? interfering() : Promise.resolve()), seen));

    expect(seen).toEqual([-1, 0]);
    expect(handled.result).toBe(0);
    expect((await store.readStream(STREAM)).map((e) => e.type)).toEqual(['Interfered', 'Counted']);
    expect(handled.position).toBe(await store.headPosition());
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts with a 409 and writes nothing of its own`, async () => {
    const seen: number[] = [];
    const refused = await handler.handle(decideAfter(interfering, seen)).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'CONCURRENT_UPDATE', kind: 'conflict' });
    expect(seen).toHaveLength(MAX_ATTEMPTS);
    const types = (await store.readStream(STREAM)).map((e) => e.type);
    expect(types).toEqual(Array.from({ length: MAX_ATTEMPTS }, () => 'Interfered'));
  });

  it('does not retry a decision that fails for another reason', async () => {
    let calls = 0;
    const failing = handler.handle(() => {
      calls++;
      throw new DomainError('NOPE', 'conflict', 'refused by the rules');
    });

    await expect(failing).rejects.toMatchObject({ code: 'NOPE' });
    expect(calls).toBe(1);
  });

  it('writes nothing for a decision without events and answers position 0', async () => {
    const handled = await handler.handle(() => ({
      appends: [{ streamId: STREAM, expectedRevision: -1, events: [] }],
      result: 'unchanged',
    }));

    expect(handled).toEqual({ result: 'unchanged', position: 0, replayed: false });
    expect(await store.headPosition()).toBe(0);
  });
});
