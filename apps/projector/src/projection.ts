import type { FoldableEvent } from '#event-store/event-store.port.js';
import type { BatchRows } from './batch-rows.js';

/**
 * One read-model projection.
 *
 * The runner hands a projection a whole batch of events at once: `preload` reads (in bulk) the rows
 * the batch will look at, then `apply` folds each event into those rows in memory (`rows.table(E)`:
 * `get` by primary key, `put` a whole row, `remove`; `rows.added(V)` for past versions), and the
 * runner writes every touched row once at the end, in the batch's transaction, with the checkpoint.
 * Within a batch `get` sees the batch's own changes. A row `preload` did not read is read on first
 * `get`: preloading is for speed only, never for correctness.
 * A projection must derive everything from the event (never the wall clock or random ids) so that a
 * rebuild from the log is identical to the live read model.
 */
export interface Projection {
  readonly name: string;
  /** Event types this projection wants; the runner never calls `apply` with another type. */
  readonly canHandle: readonly string[];
  /** Reads the rows that `events` (all of types in canHandle) will look at. */
  preload?(rows: BatchRows, events: readonly FoldableEvent[]): Promise<void>;
  /**
   * Folds one event. Reading only rows `preload` loaded (`rows.table(E).loaded(key)`), it returns
   * nothing and the runner folds the next event at once: a promise per event and projection cost a
   * rebuild of a million events about a tenth of its main thread. An `apply` that reads a row it did
   * not preload awaits `get` and returns its promise.
   */
  apply(rows: BatchRows, event: FoldableEvent): Promise<void> | void;
}
