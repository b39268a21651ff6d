import { DateTime } from 'luxon';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { type CatalogueEntry, EVENT_CATALOGUE, type InternalEventType } from './event-catalogue.js';

/** Who caused an event: a user in a project, or Leasehold itself (`reactor`, `healing`) by name. */
export interface PublicActor {
  readonly user_id: string | null;
  readonly project_id: string | null;
  readonly system: string | null;
}

/** One field a change set: its public name and its values before and after. */
export interface FieldChange {
  readonly field: string;
  readonly before: unknown;
  readonly after: unknown;
}

/** One event as `GET .../history` lists it (docs/events.md). */
export interface HistoryEntry {
  readonly position: number;
  readonly recorded_at: string;
  readonly type: string;
  readonly actor: PublicActor;
  readonly request_id: string | null;
  readonly correlation_id: string;
  readonly causation_id: string;
  readonly summary: string;
  readonly data: Readonly<Record<string, unknown>>;
  /** In a lease's history, on a change of the lease or a reservation: each field it set, before and after (history-changes.ts). */
  readonly changes?: readonly FieldChange[];
}

export const isCatalogued = (type: string): type is InternalEventType => Object.hasOwn(EVENT_CATALOGUE, type);

/**
 * The store records milliseconds; the wire format has six fractional digits (microseconds) so that
 * a finer store needs no format change. Until then the last three digits are always 0.
 */
export const recordedAtMicros = (recordedAt: string): string =>
  DateTime.fromISO(recordedAt, { zone: 'utc' }).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'000Z'");

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

const actorOf = (metadata: RecordedEvent['metadata']): PublicActor =>
  metadata.actor === null
    ? { user_id: null, project_id: null, system: text(metadata.system) }
    : { user_id: metadata.actor.userId, project_id: metadata.actor.projectId, system: null };

const publicData = <D>(entry: CatalogueEntry<D>, data: D): Readonly<Record<string, unknown>> =>
  Object.fromEntries(
    Object.entries(entry.fields).map(([name, source]) => [name, typeof source === 'function' ? source(data) : data[source]]),
  );

/** Only catalogued events reach here (`isCatalogued`): their data has the shape their type says. */
export const historyEntry = (event: RecordedEvent & { readonly type: InternalEventType }): HistoryEntry => {
  const entry = EVENT_CATALOGUE[event.type] as CatalogueEntry<unknown>;
  return {
    position: event.position,
    recorded_at: recordedAtMicros(event.recordedAt),
    type: entry.publicType,
    actor: actorOf(event.metadata),
    request_id: text(event.metadata['requestId']),
    correlation_id: event.metadata.correlationId,
    causation_id: event.metadata.causationId,
    summary: entry.summary(event.data),
    data: publicData(entry, event.data),
  };
};
