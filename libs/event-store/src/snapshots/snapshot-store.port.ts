/**
 * A process's in-memory state as of a log position, so that a start reads the events after it instead
 * of the whole log. The payload is JSON text the owner of `kind` makes and reads; a snapshot of another
 * schema version is never handed back.
 */
export interface Snapshot {
  readonly kind: string;
  readonly schemaVersion: number;
  /** The last log position the state folds in. */
  readonly position: number;
  readonly payload: string;
}

/**
 * Kept beside the log (same SQLite file, or same PostgreSQL schema): it goes with the store in a backup,
 * and every process on one PostgreSQL store shares it. One row per kind and schema version: the newest.
 */
export interface SnapshotStore {
  /** The snapshot of `kind` at `schemaVersion`, or null when none was written. */
  load(kind: string, schemaVersion: number): Promise<Snapshot | null>;
  /** Replaces the stored one unless that one covers a later position (another process got further). */
  save(snapshot: Snapshot): Promise<void>;
  close(): Promise<void>;
}
