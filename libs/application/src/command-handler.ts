import { conflict, foldEvents } from '#domain/index.js';
import type { Decider, DomainEvent } from '#domain/index.js';
import {
  type AppendRequest,
  type EventStore,
  IdempotencyConflictError,
  WrongExpectedRevisionError,
} from '#event-store/event-store.port.js';
import { isGuard } from './command.js';
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
  /** Position of the last event written (of the batch it was written with, see handleOnStream; 0 when the decision wrote nothing). */
  readonly position: number;
  /** Every event of the decision was already stored (another process recorded the same reaction first): nothing was written. */
  readonly replayed: boolean;
}

type Decide<R> = () => Promise<Decision<R>> | Decision<R>;

/** A decision on one stream waiting to be written with others (see handleOnStream). */
interface Queued {
  readonly streamId: string;
  readonly decide: Decide<unknown>;
  readonly resolve: (handled: Handled<unknown>) => void;
  readonly reject: (error: unknown) => void;
}

/** The one retry policy: a decision is taken again on fresh state this many times at most. */
export const MAX_ATTEMPTS = 20;

/** Most decisions written in one append by handleOnStream. */
export const MAX_BATCH = 64;

const isConcurrencyConflict = (error: unknown): boolean =>
  error instanceof WrongExpectedRevisionError || error instanceof IdempotencyConflictError;

/** What a decision writes, with its guards (nothing when it writes no event); its other appends of no events are dropped. */
const nonEmpty = (decision: Decision<unknown>): AppendRequest[] => {
  const writing = decision.appends.filter((append) => append.events.length > 0);
  return writing.length === 0 ? [] : decision.appends.filter((append) => append.events.length > 0 || isGuard(append));
};

/**
 * The only code that appends to the event store (as emmett's CommandHandler): load, decide, append
 * under the revisions the decision read, and on a conflict (someone wrote to one of those streams, or
 * another process recorded the same reaction first) decide again on fresh state, up to MAX_ATTEMPTS.
 * Decisions of one process run one at a time, so they never conflict with each other; other processes
 * are fenced by the revisions.
 */
export class CommandHandler {
  private readonly lock = new AsyncMutex();
  private readonly queued: Queued[] = [];
  private flushQueued = false;

  constructor(readonly store: EventStore) {}

  async load<S, E extends DomainEvent>(
    decider: Pick<Decider<S, never, E>, 'initialState' | 'evolve'>,
    streamId: string,
  ): Promise<LoadedStream<S, E>> {
    const recorded = await this.store.readStream(streamId);
    const events = recorded.map((event) => ({ type: event.type, data: event.data }) as E);
    return { state: foldEvents(decider, events), revision: recorded.length - 1, events, position: recorded.at(-1)?.position ?? 0 };
  }

  handle<R>(decide: Decide<R>): Promise<Handled<R>> {
    return this.lock.run(() => this.decideAndAppend(decide));
  }

  /**
   * handle() for a decision that reads and writes the one stream `streamId` only (a lease's reaction):
   * those asked for while the lock is taken are decided together once it frees, and written in one
   * append, so a burst of timers costs one commit per batch, not one per decision. Decisions on
   * different streams cannot see each other's writes, which is why each must stay within its stream;
   * a second decision on a stream of the batch waits for the next one. Should the batch's append fail
   * (a conflict on any of its streams, say), each of its decisions is handled on its own, as handle() would.
   */
  handleOnStream<R>(streamId: string, decide: Decide<R>): Promise<Handled<R>> {
    return new Promise<Handled<R>>((resolve, reject) => {
      this.queued.push({ streamId, decide, resolve: resolve as (handled: Handled<unknown>) => void, reject });
      this.queueFlush();
    });
  }

  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    void this.lock.run(() => this.flush());
  }

  private async flush(): Promise<void> {
    this.flushQueued = false;
    const batch = this.takeBatch();
    if (this.queued.length > 0) this.queueFlush();
    const decided: { readonly item: Queued; readonly decision: Decision<unknown> }[] = [];
    for (const item of batch) {
      try {
        decided.push({ item, decision: await item.decide() });
      } catch (error) {
        item.reject(error);
      }
    }
    const appends = decided.flatMap(({ decision }) => nonEmpty(decision));
    if (appends.length === 0 || decided.length === 1) return this.settleEach(decided);
    let written: { readonly position: number; readonly idempotentReplay: boolean };
    try {
      written = await this.store.appendMultiple(appends);
    } catch {
      // which of the streams moved on (or whether the store failed) is each decision's business
      return this.settleEach(decided);
    }
    for (const { item, decision } of decided) {
      const wrote = nonEmpty(decision).length > 0;
      item.resolve({ result: decision.result, position: wrote ? written.position : 0, replayed: wrote && written.idempotentReplay });
    }
  }

  /** The first decision of each stream, in the order asked, up to MAX_BATCH; the others stay queued. */
  private takeBatch(): Queued[] {
    const streams = new Set<string>();
    const batch: Queued[] = [];
    const rest: Queued[] = [];
    for (const item of this.queued) {
      if (batch.length < MAX_BATCH && !streams.has(item.streamId)) {
        streams.add(item.streamId);
        batch.push(item);
      } else {
        rest.push(item);
      }
    }
    this.queued.splice(0, this.queued.length, ...rest);
    return batch;
  }

  /** One by one, as handle() would, each first trying the decision already taken. */
  private async settleEach(decided: readonly { readonly item: Queued; readonly decision: Decision<unknown> }[]): Promise<void> {
    for (const { item, decision } of decided) {
      let taken: Decision<unknown> | null = decision;
      const decide = (): Promise<Decision<unknown>> | Decision<unknown> => {
        const first = taken;
        taken = null;
        return first ?? item.decide();
      };
      await this.decideAndAppend(decide).then(item.resolve, item.reject);
    }
  }

  /** Runs with the lock held. */
  private async decideAndAppend<R>(decide: Decide<R>): Promise<Handled<R>> {
    for (let attempt = 1; ; attempt++) {
      const decision = await decide();
      const appends = nonEmpty(decision);
      if (appends.length === 0) return { result: decision.result, position: 0, replayed: false };
      try {
        const written = await this.store.appendMultiple(appends);
        return { result: decision.result, position: written.position, replayed: written.idempotentReplay };
      } catch (error) {
        if (!isConcurrencyConflict(error)) throw error;
        if (attempt >= MAX_ATTEMPTS)
          throw conflict('CONCURRENT_UPDATE', 'Too many concurrent changes to the same resources; retry the request');
      }
    }
  }
}
