import type { EventStore } from '#event-store/event-store.port.js';
import type { SnapshotStore } from '#event-store/snapshots/snapshot-store.port.js';
import type { SnapshotConfig } from '../snapshots/snapshot.config.js';
import { type Restore, SnapshotWriter, loadSnapshot } from '../snapshots/state-snapshots.js';
import { WriteIndex, type WriteIndexPayload } from './write-index.js';

export const WRITE_INDEX_SNAPSHOT_KIND = 'write-index';
/** 1: every state WriteIndex folds, as WriteIndexPayload. */
export const WRITE_INDEX_SCHEMA_VERSION = 1;

const LISTS = ['hosts', 'properties', 'propertyNames', 'floatingIps'] as const;
const STATES = ['registry', 'floatingIpRegistry', 'flavors'] as const;

const isPayload = (payload: unknown): payload is WriteIndexPayload =>
  typeof payload === 'object' &&
  payload !== null &&
  LISTS.every((key) => Array.isArray((payload as Record<string, unknown>)[key])) &&
  STATES.every((key) => typeof (payload as Record<string, unknown>)[key] === 'object');

export interface OpenedWriteIndex {
  readonly index: WriteIndex;
  readonly writer: SnapshotWriter<WriteIndexPayload>;
  /** Where the index started from: a snapshot's position, or why it folded the whole log. */
  readonly restored: { readonly position: number } | { readonly reason: string };
}

/** A snapshot past the log's head belongs to another log (a store restored from an older backup). */
const checkedAgainstHead = async (store: EventStore, loaded: Restore<WriteIndexPayload>): Promise<Restore<WriteIndexPayload>> => {
  if (!loaded.found) return loaded;
  const head = await store.headPosition();
  return loaded.position <= head ? loaded : { found: false, reason: `snapshot at position ${loaded.position} is past the log's head ${head}` };
};

/**
 * The write index from its newest snapshot and the events after it (the whole log when there is no
 * usable snapshot), caught up to the head, with a writer that keeps the snapshot going.
 */
export const openWriteIndex = async (store: EventStore, snapshots: SnapshotStore, config: SnapshotConfig, onError: (error: unknown) => void): Promise<OpenedWriteIndex> => {
  const index = new WriteIndex(store);
  const loaded = await checkedAgainstHead(store, await loadSnapshot(snapshots, WRITE_INDEX_SNAPSHOT_KIND, WRITE_INDEX_SCHEMA_VERSION, isPayload));
  if (loaded.found) index.restore(loaded.position, loaded.payload);
  await index.catchUp();
  const subject = { kind: WRITE_INDEX_SNAPSHOT_KIND, schemaVersion: WRITE_INDEX_SCHEMA_VERSION, capture: () => index.capture() };
  const writer = new SnapshotWriter({ store: snapshots, subject, everyMs: config.everyMs, everyEvents: config.everyEvents, onError });
  writer.start(loaded.found ? loaded.position : -1);
  // a start that read anything past the snapshot writes one at once: the next start reads less
  if (config.everyMs > 0) void writer.write(1);
  return { index, writer, restored: loaded.found ? { position: loaded.position } : { reason: loaded.reason } };
};
