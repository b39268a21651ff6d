import type { EventMetadata, RecordedEvent } from './event-store.port.js';
import { upcast } from './event-versions.js';
import { decodeStoredText as decode } from './stored-text.js';

/** The columns a whole event is read from, in every SQL adapter, in this order. */
export const EVENT_COLUMNS = 'position, event_id, stream_id, revision, type, schema_version, data, metadata, recorded_at';

/**
 * A row of EVENT_COLUMNS as an array (better-sqlite3's `.raw()`, node-postgres's `rowMode: 'array'`): a read makes
 * no key/value object per row. PostgreSQL hands the position, a bigint, over as text.
 */
export type EventRow = [number | string, string, string, number, string, number, string, string, string];

/** An event read back from its row: names decoded, data upcast to the shape this build folds (docs/upgrades.md). */
export const recordedEvent = ([
  position,
  eventId,
  streamId,
  revision,
  storedType,
  version,
  data,
  metadata,
  recordedAt,
]: EventRow): RecordedEvent => {
  const type = decode(storedType);
  return {
    id: decode(eventId),
    streamId: decode(streamId),
    revision,
    position: Number(position),
    type,
    data: upcast(type, version, JSON.parse(data)),
    metadata: JSON.parse(metadata) as EventMetadata,
    recordedAt,
  };
};
