import { createHash } from 'node:crypto';
import {
  ANY,
  NO_STREAM,
  STREAM_EXISTS,
  type AppendStreamState,
  type JSONEventData,
  type JSONType,
  type RecordedEvent as ServerEvent,
} from '@kurrent/kurrentdb-client';
import type { EventData, EventMetadata, ExpectedRevision, RecordedEvent } from '../event-store.port.js';
import { storedVersionOf, upcast } from '../event-versions.js';
import { decodeStoredText as decode, encodeStoredText as encode } from '../stored-text.js';
import { toPortPosition } from './kurrentdb-positions.js';

/**
 * One metadata property holds what the port needs back: multiStreamAppend takes metadata only as
 * string values, and the port's id, metadata (nested) and recordedAt are not all strings. JSON text
 * escapes lone surrogates, which the gRPC strings (UTF-8) could not carry.
 */
export const LEASEHOLD_PROPERTY = 'leasehold';

interface StoredEnvelope {
  readonly id: string;
  readonly metadata: EventMetadata;
  readonly recordedAt: string;
  /** The version of the type's shape the data was written at (event-versions.ts); absent: 1, written before versions. */
  readonly version?: number;
}

/** `leasehold.events.` then the stream id, encoded like the SQL columns so that any string survives UTF-8. */
export const streamPrefix = (prefix: string, log: string): string => `${prefix}.${log}.`;

export const toStreamName = (streamPrefixText: string, streamId: string): string => `${streamPrefixText}${encode(streamId)}`;

export const fromStreamName = (streamPrefixText: string, streamName: string): string => {
  if (!streamName.startsWith(streamPrefixText)) throw new Error(`stream ${streamName} is not one of this store's (${streamPrefixText}...)`);
  return decode(streamName.slice(streamPrefixText.length));
};

/**
 * The server wants a UUID per event and deduplicates retries by it, so the port's free-form id is
 * hashed into one (version 8, "custom"): the same id always gives the same UUID. Encoded first, so
 * ids differing only in a lone surrogate (which UTF-8 hashing would fold into U+FFFD) stay apart.
 */
export const toServerEventId = (eventId: string): string => {
  const hex = createHash('sha256')
    .update(`leasehold-event:${encode(eventId)}`, 'utf8')
    .digest('hex');
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

export const toStreamState = (expected: ExpectedRevision): AppendStreamState => {
  switch (expected) {
    case 'no_stream':
      return NO_STREAM;
    case 'any':
      return ANY;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return expected === -1 ? NO_STREAM : BigInt(expected);
  }
};

export const toServerEvent = (event: EventData, recordedAt: string): JSONEventData => ({
  id: toServerEventId(event.id),
  contentType: 'application/json',
  type: encode(event.type),
  // JSON text of any value the port accepts; the client stringifies it as given
  data: (event.data ?? null) as JSONType,
  metadata: {
    [LEASEHOLD_PROPERTY]: JSON.stringify({
      id: event.id,
      metadata: event.metadata,
      recordedAt,
      version: storedVersionOf(event.type),
    } satisfies StoredEnvelope),
  },
});

const envelopeOf = (event: ServerEvent): StoredEnvelope => {
  const metadata = event.metadata as Record<string, unknown> | undefined;
  const text = metadata?.[LEASEHOLD_PROPERTY];
  if (typeof text !== 'string')
    throw new Error(`event ${event.id} in ${event.streamId} was not written by Leasehold (no '${LEASEHOLD_PROPERTY}' metadata)`);
  return JSON.parse(text) as StoredEnvelope;
};

/** The JSON we sent, whether the server marks the event as JSON (parsed by the client) or hands back its bytes. */
const dataOf = (event: ServerEvent): unknown =>
  event.isJson ? event.data : (JSON.parse(Buffer.from(event.data).toString('utf8')) as unknown);

export const fromServerEvent = (streamPrefixText: string, event: ServerEvent): RecordedEvent => {
  if (event.position === undefined) throw new Error(`the server sent event ${event.id} of ${event.streamId} without its log position`);
  const envelope = envelopeOf(event);
  const type = decode(event.type);
  return {
    id: envelope.id,
    streamId: fromStreamName(streamPrefixText, event.streamId),
    revision: Number(event.revision),
    position: toPortPosition(event.position),
    type,
    data: upcast(type, envelope.version ?? 1, dataOf(event)),
    metadata: envelope.metadata,
    recordedAt: envelope.recordedAt,
  };
};
