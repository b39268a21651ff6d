import { conflict, foldEvents } from '#domain/index.js';
import type { Decider, DomainEvent } from '#domain/index.js';
import {
  type AppendRequest,
  type EventStore,
  IdempotencyConflictError,
  WrongExpectedRevisionError,
} from '#event-store/event-store.port.js';
import { AsyncMutex } from './write-model/async-mutex.js';

/** A stream folded with its decider: the state, its last revision (-1: no stream) and its events. */
export interface LoadedStream<S, E> {
  /** Log position of the stream's last event (0: none): what a read must include to show this state. */
  readonly position: number;
  readonly state: S;
  readonly revision: number;
  readonly events: readonly E[];
}

/** What one decision comes to: the appends (one atomic write, each under the revision it was decided on) and the answer. */
export interface Decision<R> {
  readonly appends: readonly AppendRequest[];
  readonly result: R;
}

export interface Handled<R> {
  readonly result: R;
  /** Position of the last event written (0 when the decision wrote nothing). */
  readonly position: number;
  /** Every event of the decision was already stored (another process recorded the same reaction first): nothing was written. */
  readonly replayed: boolean;
}

/** The one retry policy: a decision is taken again on fresh state this many times at most. */
export const MAX_ATTEMPTS = 20;

const isConcurrencyConflict = (error: unknown): boolean => error instanceof WrongExpectedRevisionError || error instanceof IdempotencyConflictError;

/**
 * The only code that appends to the event store (as emmett's CommandHandler): load, decide, append
 * under the revisions the decision read, and on a conflict (someone wrote to one of those streams, or
 * another process recorded the same reaction first) decide again on fresh state, up to MAX_ATTEMPTS.
 * Decisions of one process run one at a time, so they never conflict with each other; other processes
 * are fenced by the revisions.
 */
export class CommandHandler {
  private readonly lock = new AsyncMutex();

  constructor(readonly store: EventStore) {}

  async load<S, E extends DomainEvent>(decider: Pick<Decider<S, never, E>, 'initialState' | 'evolve'>, streamId: string): Promise<LoadedStream<S, E>> {
    const recorded = await this.store.readStream(streamId);
    const events = recorded.map((event) => ({ type: event.type, data: event.data }) as E);
    return { state: foldEvents(decider, events), revision: recorded.length - 1, events, position: recorded.at(-1)?.position ?? 0 };
  }

  handle<R>(decide: () => Promise<Decision<R>> | Decision<R>): Promise<Handled<R>> {
    return this.lock.run(async () => {
      for (let attempt = 1; ; attempt++) {
        const decision = await decide();
        const appends = decision.appends.filter((append) => append.events.length > 0);
        if (appends.length === 0) return { result: decision.result, position: 0, replayed: false };
        try {
          const written = await this.store.appendMultiple(appends);
          return { result: decision.result, position: written.position, replayed: written.idempotentReplay };
        } catch (error) {
          if (!isConcurrencyConflict(error)) throw error;
          if (attempt >= MAX_ATTEMPTS) throw conflict('CONCURRENT_UPDATE', 'Too many concurrent changes to the same resources; retry the request');
        }
      }
    });
  }
}
