import type { EventStore } from '#event-store/event-store.port.js';
import type { SnapshotStore } from '#event-store/snapshots/snapshot-store.port.js';
import type { SnapshotConfig } from '#application/snapshots/snapshot.config.js';
import { type Restore, loadSnapshot, withinLog } from '#application/snapshots/state-snapshots.js';
import type { TimelinePayload } from './lease-timeline.js';

export const TIMELINE_SNAPSHOT_KIND = 'reactor-timeline';
/**
 * 1: TimelinePayload, lease records as leaseReactionView folds them.
 * 2: lease records carry `releasing` (what an owed change still gives up in the cloud).
 */
export const TIMELINE_SCHEMA_VERSION = 2;

export interface TimelineSnapshots {
  readonly store: SnapshotStore;
  readonly config: SnapshotConfig;
}

const isPayload = (payload: unknown): payload is TimelinePayload =>
  typeof payload === 'object' &&
  payload !== null &&
  ['leases', 'finished', 'hostnames'].every((key) => Array.isArray((payload as Record<string, unknown>)[key]));

/** The timeline's newest usable snapshot (one past the log's head belongs to another log and is not used). */
export const loadTimelineSnapshot = async (store: EventStore, snapshots: SnapshotStore): Promise<Restore<TimelinePayload>> =>
  withinLog(store, await loadSnapshot(snapshots, TIMELINE_SNAPSHOT_KIND, TIMELINE_SCHEMA_VERSION, isPayload));
