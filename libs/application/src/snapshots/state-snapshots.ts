import type { EventStore } from '#event-store/event-store.port.js';
import type { SnapshotStore } from '#event-store/snapshots/snapshot-store.port.js';
import { decodeState, encodeState } from './state-codec.js';

/** A state that can be written as of the position it folds in, and read back by its owner. */
export interface SnapshotSubject<P> {
  readonly kind: string;
  /** Raised whenever the payload's shape or meaning changes: an older snapshot is then rebuilt from the log. */
  readonly schemaVersion: number;
  /** Given: run before each capture (a state its owner folds only when it needs it catches up to the head first). */
  settle?(): Promise<void>;
  capture(): { readonly position: number; readonly payload: P };
}

export type Restore<P> =
  { readonly found: true; readonly position: number; readonly payload: P } | { readonly found: false; readonly reason: string };

/** The newest snapshot of the subject's schema; otherwise why the state is to be folded from the log. */
export const loadSnapshot = async <P>(
  store: SnapshotStore,
  kind: string,
  schemaVersion: number,
  check: (payload: unknown) => payload is P,
): Promise<Restore<P>> => {
  let snapshot;
  try {
    snapshot = await store.load(kind, schemaVersion);
  } catch (error) {
    return { found: false, reason: `snapshot unreadable: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (snapshot === null) return { found: false, reason: `no snapshot of schema version ${schemaVersion}` };
  let payload: unknown;
  try {
    payload = decodeState(snapshot.payload);
  } catch (error) {
    return { found: false, reason: `snapshot corrupt: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!check(payload)) return { found: false, reason: 'snapshot corrupt: its payload has not the expected shape' };
  return { found: true, position: snapshot.position, payload };
};

export interface SnapshotWriterOptions<P> {
  readonly store: SnapshotStore;
  readonly subject: SnapshotSubject<P>;
  /** Time between two looks; a snapshot is written when the state moved at least `everyEvents` positions. */
  readonly everyMs: number;
  readonly everyEvents: number;
  readonly onError: (error: unknown) => void;
}

/**
 * Writes the subject's snapshot every so often and at stop. The state is captured synchronously
 * (the folded states are immutable, so capture copies no booking) and written by the store's own
 * async call: an admission waits at most for the encoding, never for the database.
 */
export class SnapshotWriter<P> {
  private timer: NodeJS.Timeout | null = null;
  private written = -1;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly options: SnapshotWriterOptions<P>) {}

  /** `restoredAt`: the position of the snapshot the state was restored from (none is written again for it). */
  start(restoredAt = -1): this {
    this.written = restoredAt;
    if (this.options.everyMs <= 0) return this;
    this.timer = setInterval(() => void this.write(this.options.everyEvents), this.options.everyMs);
    this.timer.unref();
    return this;
  }

  /** A snapshot now if the state moved at all (clean shutdown). */
  async stop(): Promise<void> {
    const writing = this.timer !== null;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    if (writing) await this.write(1);
  }

  /** Writes when the state moved at least `minEvents` positions past the last snapshot. */
  write(minEvents: number): Promise<void> {
    this.writing = this.writing.then(async () => {
      const { subject, store } = this.options;
      try {
        await subject.settle?.();
      } catch (error) {
        // a snapshot of the state as it stands is still a true one: only its position is older
        this.options.onError(error);
      }
      const { position, payload } = subject.capture();
      if (position - this.written < minEvents) return;
      try {
        await store.save({ kind: subject.kind, schemaVersion: subject.schemaVersion, position, payload: encodeState(payload) });
        this.written = position;
      } catch (error) {
        this.options.onError(error);
      }
    });
    return this.writing;
  }
}

/** A snapshot past the log's head belongs to another log (a store restored from an older backup): not used. */
export const withinLog = async <P>(store: EventStore, loaded: Restore<P>): Promise<Restore<P>> => {
  if (!loaded.found) return loaded;
  const head = await store.headPosition();
  return loaded.position <= head
    ? loaded
    : { found: false, reason: `snapshot at position ${loaded.position} is past the log's head ${head}` };
};
