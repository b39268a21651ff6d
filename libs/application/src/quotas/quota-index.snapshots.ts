import type { EventStore } from '#event-store/event-store.port.js';
import type { SnapshotStore } from '#event-store/snapshots/snapshot-store.port.js';
import type { Forgetting, SnapshotConfig } from '../snapshots/snapshot.config.js';
import { SnapshotWriter, loadSnapshot, withinLog } from '../snapshots/state-snapshots.js';
import { QuotaIndex, type QuotaIndexPayload } from './quota-index.js';

export const QUOTA_INDEX_SNAPSHOT_KIND = 'quota-index';
/** 1: QuotaIndexPayload (every tracked lease, every project's quota stream). 2: ended leases kept as their hours per month (spent). */
export const QUOTA_INDEX_SCHEMA_VERSION = 2;

const isPayload = (payload: unknown): payload is QuotaIndexPayload =>
  typeof payload === 'object' &&
  payload !== null &&
  Array.isArray((payload as Record<string, unknown>).leases) &&
  Array.isArray((payload as Record<string, unknown>).spent) &&
  Array.isArray((payload as Record<string, unknown>).quotas);

export interface OpenedQuotaIndex {
  readonly index: QuotaIndex;
  readonly writer: SnapshotWriter<QuotaIndexPayload>;
  /** Where the index started from: a snapshot's position, or why it folded the whole log. */
  readonly restored: { readonly position: number } | { readonly reason: string };
}

/**
 * The quota index from its newest snapshot and the events after it (the whole log when there is no
 * usable snapshot: missing, of an older schema, or past the log's head), with a writer that keeps the
 * snapshot going, as the write index beside it (write-index.snapshots.ts).
 */
export const openQuotaIndex = async (
  store: EventStore,
  snapshots: SnapshotStore,
  config: SnapshotConfig,
  onError: (error: unknown) => void,
  forget?: Forgetting,
): Promise<OpenedQuotaIndex> => {
  const index = new QuotaIndex(store);
  const loaded = await withinLog(store, await loadSnapshot(snapshots, QUOTA_INDEX_SNAPSHOT_KIND, QUOTA_INDEX_SCHEMA_VERSION, isPayload));
  if (loaded.found) index.restore(loaded.position, loaded.payload);
  const forgetEnded = (): void => {
    if (forget !== undefined) index.forgetLeasesEndedBefore(forget.now() - forget.pastMs);
  };
  const capture = () => {
    forgetEnded();
    return index.capture();
  };
  const subject = { kind: QUOTA_INDEX_SNAPSHOT_KIND, schemaVersion: QUOTA_INDEX_SCHEMA_VERSION, capture };
  const writer = new SnapshotWriter({ store: snapshots, subject, everyMs: config.everyMs, everyEvents: config.everyEvents, onError }).start(
    loaded.found ? loaded.position : -1,
  );
  await index.catchUp();
  forgetEnded();
  if (config.everyMs > 0) void writer.write(1);
  return { index, writer, restored: loaded.found ? { position: loaded.position } : { reason: loaded.reason } };
};
