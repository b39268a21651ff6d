import type { RecordedEvent } from '#event-store/event-store.port.js';
import { streamCategory } from '#event-store/event-store.port.js';
import { RESOURCE_KINDS, type ResourceKindSubject } from '#plugins/resource-kinds.js';
import { type HistoryEntry, historyEntry, isCatalogued } from '../history/history-entry.js';

/**
 * The version of the public `data` shapes (docs/events.md, "Versioning"): fields are only ever added,
 * so it stays 1 until a breaking change brings an upcaster and a new version with it.
 */
export const PUBLIC_SCHEMA_VERSION = 1;

/** What an event is about, as outbound channels key and route it: a lease, or a resource by its id. */
export type SubjectKind =
  | 'lease'
  | 'lease_request'
  | 'host'
  | 'floating_ip'
  | 'resource_property'
  | 'flavor'
  | 'rate_card'
  | 'freepool'
  | 'quota'
  | 'fair_share'
  | ResourceKindSubject;

export interface EventSubject {
  readonly kind: SubjectKind;
  readonly id: string;
}

/** One stored event as every outbound channel sends it: the history entry plus its id and subject. */
export interface PublicEvent extends HistoryEntry {
  readonly id: string;
  readonly subject: EventSubject;
  readonly schemaVersion: number;
}

/**
 * Stream category -> the subject its events are about and the public field naming it. The activity
 * and registry streams are about hosts and floating IPs too, so their events share the subject (and a
 * channel's ordering key) with the resource's own stream.
 */
const SUBJECTS: Readonly<Record<string, { readonly kind: SubjectKind; readonly field: string }>> = {
  lease: { kind: 'lease', field: 'lease_id' },
  leaserequest: { kind: 'lease_request', field: 'request_id' },
  host: { kind: 'host', field: 'host_id' },
  hostactivity: { kind: 'host', field: 'host_id' },
  hostregistry: { kind: 'host', field: 'host_id' },
  floatingip: { kind: 'floating_ip', field: 'floating_ip_id' },
  floatingipregistry: { kind: 'floating_ip', field: 'floating_ip_id' },
  property: { kind: 'resource_property', field: 'property_name' },
  flavorcatalog: { kind: 'flavor', field: 'flavor_id' },
  ratecard: { kind: 'rate_card', field: 'name' },
  freepool: { kind: 'freepool', field: 'zone' },
  quota: { kind: 'quota', field: 'project_id' },
  fairshare: { kind: 'fair_share', field: 'project_id' },
  // each registered resource kind names its own categories' subjects (resource-kinds.ts)
  ...Object.fromEntries(
    RESOURCE_KINDS.flatMap((kind) => kind.subjects.map(({ category, subject, field }) => [category, { kind: subject, field }] as const)),
  ),
};

const subjectOf = (event: RecordedEvent, entry: HistoryEntry): EventSubject | null => {
  const subject = SUBJECTS[streamCategory(event.streamId)];
  const id = subject === undefined ? undefined : entry.data[subject.field];
  return subject === undefined || typeof id !== 'string' ? null : { kind: subject.kind, id };
};

/**
 * The public form of a stored event, or null for one that has none (a type outside the catalogue,
 * or a stream no subject is known for): channels skip those and move on.
 */
export const publicEventOf = (event: RecordedEvent): PublicEvent | null => {
  if (!isCatalogued(event.type)) return null;
  const entry = historyEntry(event as RecordedEvent & { readonly type: typeof event.type });
  const subject = subjectOf(event, entry);
  return subject === null ? null : { ...entry, id: event.id, subject, schemaVersion: PUBLIC_SCHEMA_VERSION };
};
