import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { systemCaller } from '../../caller.js';
import type { CommandMetadata } from '../../command.js';
import { CommandHandler } from '../../command-handler.js';

/** An event already in the ledger, with the identity and correlation a reaction is keyed and caused by. */
export interface GivenEvent {
  readonly id: string;
  readonly streamId: string;
  readonly type: string;
  readonly data: unknown;
  readonly correlationId: string;
}

/** A real (in-memory SQLite) ledger holding `given`, for what the specification's events leave out: ids, metadata, races. */
export const reactionLedger = async (given: readonly GivenEvent[]): Promise<EventStore> => {
  const store = SqliteEventStore.open({ file: ':memory:' });
  for (const { id, streamId, type, data, correlationId } of given) {
    await store.appendToStream(streamId, 'any', [{ id, type, data, metadata: { correlationId, causationId: correlationId, actor: null } }]);
  }
  return store;
};

/**
 * The store, except that its first read lets `meanwhile` (another reactor, or a user) write first: what
 * happens when someone appends between a decision's read and its append.
 */
export const racing = (store: EventStore, meanwhile: () => Promise<unknown>): EventStore => {
  let raced = false;
  return new Proxy(store, {
    get: (target, key) => {
      if (key === 'readStream') {
        return async (...args: Parameters<EventStore['readStream']>): Promise<RecordedEvent[]> => {
          const events = await target.readStream(...args);
          if (!raced) {
            raced = true;
            await meanwhile();
          }
          return events;
        };
      }
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
};

export const handlerOn = (store: EventStore): { readonly handler: CommandHandler } => ({ handler: new CommandHandler(store) });

/** A reactor command's metadata: the reactor as actor, at `now`, reacting to `causationId`. */
export const reactorAt = (now: string, causationId = 'trigger', correlationId = 'trigger'): CommandMetadata => ({
  actor: systemCaller('reactor'),
  correlationId,
  causationId,
  now,
});
