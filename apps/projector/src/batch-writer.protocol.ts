/** What the main thread and the projector's SQLite writer thread (batch-writer.thread.ts) say to each other. */

/** What better-sqlite3 binds. */
export type Bindable = string | number | bigint | Buffer | null;

export interface WriterSetup {
  /** The read model's SQLite file. */
  readonly file: string;
  /** Run on the writer's connection first (`busy_timeout = 5000`, ...): the main connection's settings. */
  readonly pragmas: readonly string[];
}

/** `select <position> ... where <key> = ?`: the batch is written only if it finds `expected` (no row: 0). */
export interface CheckpointGuard {
  readonly sql: string;
  readonly params: readonly Bindable[];
  readonly expected: number;
}

/**
 * One statement run once per row: the rows' bound values one after another in one array (`width` per
 * row), which costs the main thread far less to build and to post than an array per row.
 */
export interface WriteStep {
  readonly sql: string;
  readonly width: number;
  readonly values: readonly Bindable[];
}

export type WriterMessage =
  | { readonly kind: 'batch'; readonly id: number; readonly guards: readonly CheckpointGuard[]; readonly steps: readonly WriteStep[] }
  /** The main thread has dealt with a failure: write batches again. */
  | { readonly kind: 'reset' }
  | { readonly kind: 'close' };

export type WriterReply =
  | { readonly kind: 'written'; readonly id: number }
  /** Nothing of the batch was written; `moved`: a checkpoint was not where the batch was folded from. */
  | { readonly kind: 'failed'; readonly id: number; readonly error: string; readonly moved: boolean }
  | { readonly kind: 'closed' };
