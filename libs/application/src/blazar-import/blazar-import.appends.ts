import { createHash } from 'node:crypto';
import type { DomainEvent } from '#domain/index.js';
import type { AppendRequest, EventData } from '#event-store/event-store.port.js';
import { systemCaller } from '../caller.js';
import { eventMetadata } from '../command.js';

/** The importer's name as the actor of every event it writes, and the correlation they share. */
export const IMPORTER = 'blazar-import';

/** The Blazar row an event stands for: `blazar:<table>:<id>`, its causation. */
export const sourceRow = (table: string, id: string): string => `blazar:${table}:${id}`;

/**
 * A UUID (version 5 layout) from a name: the import's event ids derive from what they stand for, so
 * importing the same database again appends events the store already holds, which it skips.
 */
export const nameBasedId = (name: string): string => {
  const bytes = createHash('sha1').update(`leasehold ${IMPORTER} ${name}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

export interface Caused {
  readonly event: DomainEvent;
  /** The source row (sourceRow). */
  readonly causation: string;
}

export interface StreamEvents {
  readonly streamId: string;
  readonly events: readonly Caused[];
}

/**
 * The import's appends in order, each as the service would have made it (a stream's registration, a lease
 * with its bookings): expected revisions follow the streams' planned events, ids their place in the stream.
 */
export class ImportAppends {
  private readonly lengths = new Map<string, number>();
  readonly appends: AppendRequest[][] = [];

  append(...streams: readonly StreamEvents[]): void {
    const requests = streams.filter((s) => s.events.length > 0).map((s) => this.request(s));
    if (requests.length > 0) this.appends.push(requests);
  }

  private request({ streamId, events }: StreamEvents): AppendRequest {
    const length = this.lengths.get(streamId) ?? 0;
    this.lengths.set(streamId, length + events.length);
    return {
      streamId,
      expectedRevision: length === 0 ? 'no_stream' : length - 1,
      events: events.map(({ event, causation }, index): EventData => ({
        id: nameBasedId(`${streamId} ${length + index}`),
        type: event.type,
        data: event.data,
        metadata: eventMetadata({ actor: systemCaller(IMPORTER), correlationId: IMPORTER, causationId: causation, now: '' }),
      })),
    };
  }

  /** Every stream the import writes, with the ids of its events in order. */
  streams(): ReadonlyMap<string, readonly string[]> {
    const ids = new Map<string, string[]>();
    for (const request of this.appends.flat()) {
      const stored = ids.get(request.streamId);
      const planned = request.events.map((e) => e.id);
      if (stored === undefined) ids.set(request.streamId, planned);
      else stored.push(...planned);
    }
    return ids;
  }
}
