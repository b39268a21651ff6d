import type { EventStore } from '#event-store/event-store.port.js';
import type { SnapshotStore } from '#event-store/snapshots/snapshot-store.port.js';
import type { Forgetting, SnapshotConfig } from '../snapshots/snapshot.config.js';
import { SnapshotWriter, loadSnapshot, withinLog } from '../snapshots/state-snapshots.js';
import { WriteIndex, type WriteIndexPayload } from './write-index.js';

/** The API's index: the bookings of leases not deleted that ended at most its kept past ago, or run, or are to come. */
export const WRITE_INDEX_SNAPSHOT_KIND = 'write-index';
/**
 * 1: every state WriteIndex folds, as WriteIndexPayload. 2: with keptFromMs, the bookings ended before it left out.
 * 3: with `kinds`, the registered resource kinds' states (network segments). 4: hosts with their maintenance windows.
 * 5: floating IPs and network segments with their maintenance windows.
 */
export const WRITE_INDEX_SCHEMA_VERSION = 5;

const LISTS = ['hosts', 'properties', 'propertyNames', 'floatingIps', 'kinds'] as const;
const STATES = ['registry', 'floatingIpRegistry', 'flavors'] as const;

const isPayload = (payload: unknown): payload is WriteIndexPayload =>
  typeof payload === 'object' &&
  payload !== null &&
  LISTS.every((key) => Array.isArray((payload as Record<string, unknown>)[key])) &&
  STATES.every((key) => typeof (payload as Record<string, unknown>)[key] === 'object') &&
  ['number', 'object'].includes(typeof (payload as Record<string, unknown>).keptFromMs);

export interface OpenedWriteIndex {
  readonly index: WriteIndex;
  readonly writer: SnapshotWriter<WriteIndexPayload>;
  /** Where the index started from: a snapshot's position, or why it folds the whole log. */
  readonly restored: { readonly position: number } | { readonly reason: string };
}

export interface WriteIndexSnapshots {
  readonly store: SnapshotStore;
  readonly config: SnapshotConfig;
  readonly onError: (error: unknown) => void;
  /** Each index that forgets differently keeps a kind of its own (default WRITE_INDEX_SNAPSHOT_KIND). */
  readonly kind?: string;
  /** Given: each snapshot look first forgets the bookings that ended more than `pastMs` before `now()`. */
  readonly forget?: Forgetting;
  /**
   * True for an index its owner catches up only when it decides something (the reactor's healing and freepool
   * calendars): each snapshot look catches it up first, or its snapshot would stay where the last decision left it
   * and every start would fold the log from there.
   */
  readonly catchUpBeforeSnapshot?: boolean;
}

/**
 * A write index from its newest snapshot (empty when there is no usable one), with a writer that keeps
 * the snapshot going; its owner's next catch-up reads the events after it.
 */
export const restoreWriteIndex = async (store: EventStore, snapshots: WriteIndexSnapshots): Promise<OpenedWriteIndex> => {
  const kind = snapshots.kind ?? WRITE_INDEX_SNAPSHOT_KIND;
  const index = new WriteIndex(store);
  const loaded = await withinLog(store, await loadSnapshot(snapshots.store, kind, WRITE_INDEX_SCHEMA_VERSION, isPayload));
  if (loaded.found) index.restore(loaded.position, loaded.payload);
  const { config, onError } = snapshots;
  const { forget } = snapshots;
  const capture = () => {
    if (forget !== undefined) index.forgetBookingsEndedBefore(forget.now() - forget.pastMs);
    return index.capture();
  };
  const subject = {
    kind,
    schemaVersion: WRITE_INDEX_SCHEMA_VERSION,
    capture,
    ...(snapshots.catchUpBeforeSnapshot === true ? { settle: () => index.catchUp() } : {}),
  };
  const writer = new SnapshotWriter({ store: snapshots.store, subject, everyMs: config.everyMs, everyEvents: config.everyEvents, onError });
  writer.start(loaded.found ? loaded.position : -1);
  return { index, writer, restored: loaded.found ? { position: loaded.position } : { reason: loaded.reason } };
};

/**
 * The API's write index, restored and caught up to the head before it admits anything; with `forget`,
 * it holds only the bookings ended within the kept past (from the start, then at each snapshot look).
 */
export const openWriteIndex = async (
  store: EventStore,
  snapshots: SnapshotStore,
  config: SnapshotConfig,
  onError: (error: unknown) => void,
  forget?: Forgetting,
): Promise<OpenedWriteIndex> => {
  const opened = await restoreWriteIndex(store, { store: snapshots, config, onError, ...(forget === undefined ? {} : { forget }) });
  await opened.index.catchUp();
  if (forget !== undefined) opened.index.forgetBookingsEndedBefore(forget.now() - forget.pastMs);
  // a start that read anything past the snapshot writes one at once: the next start reads less
  if (config.everyMs > 0) void opened.writer.write(1);
  return opened;
};
