import type { PublicEvent } from '#application/outbound/public-event.js';
import { RESOURCE_KINDS, type ResourceKindSubject } from '#plugins/resource-kinds.js';

/** A CloudEvents 1.0 event in structured mode (https://github.com/cloudevents/spec, JSON format). */
export interface CloudEvent {
  readonly specversion: '1.0';
  readonly id: string;
  readonly source: string;
  readonly type: string;
  readonly time: string;
  readonly subject: string;
  readonly datacontenttype: 'application/json';
  readonly dataschema: string;
  /** Extension: the event's global position in the log (order across subjects, gaps allowed). */
  readonly position: number;
  readonly data: Readonly<Record<string, unknown>>;
}

export const CLOUDEVENTS_CONTENT_TYPE = 'application/cloudevents+json; charset=UTF-8';

/** Each registered resource kind's subjects' paths (resource-kinds.ts). */
const KIND_PATHS = Object.fromEntries(
  RESOURCE_KINDS.flatMap((kind) => kind.subjects.map(({ subject, path }) => [subject, path] as const)),
) as Readonly<Record<ResourceKindSubject, string>>;

/** Plural path segment per subject: `leases/<id>`, as the REST API names the resources. */
const SUBJECT_PATHS: Readonly<Record<PublicEvent['subject']['kind'], string>> = {
  ...KIND_PATHS,
  lease: 'leases',
  lease_request: 'lease-requests',
  host: 'hosts',
  floating_ip: 'floatingips',
  resource_property: 'properties',
  flavor: 'flavors',
  rate_card: 'rate-cards',
  freepool: 'freepools',
  quota: 'quotas',
  fair_share: 'fair-share',
};

export const subjectPath = (event: PublicEvent): string => SUBJECT_PATHS[event.subject.kind];

/** Every subject path: the Kafka channel's topic suffixes. */
export const SUBJECT_PATH_NAMES: readonly string[] = [...new Set(Object.values(SUBJECT_PATHS))];

/**
 * `type` is the public type of docs/events.md as it is (consumers match the catalogue's names);
 * `dataschema` names that type's data at the public schema version, so a breaking change is visible
 * in every message.
 */
export const cloudEventOf = (event: PublicEvent, source: string): CloudEvent => ({
  specversion: '1.0',
  id: event.id,
  source,
  type: event.type,
  time: event.recorded_at,
  subject: `${subjectPath(event)}/${event.subject.id}`,
  datacontenttype: 'application/json',
  dataschema: `urn:leasehold:events:${event.type}:v${event.schemaVersion}`,
  position: event.position,
  data: event.data,
});
