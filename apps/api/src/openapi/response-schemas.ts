import {
  type BlazarEventStatus,
  type BlazarLeaseStatus,
  type BlazarReservationStatus,
  type FlavorView,
  type FloatingIpView,
  type HostView,
  type LeaseEventView,
  type LeaseView,
  type ReservationViewBase,
} from '#read-model/index.js';
import { RESERVATION_VIEWS, type SharedView } from '#plugins/lease-view.js';
import { physicalHostType } from '#plugins/physical-host/physical-host.type.js';
import type { FieldChange, HistoryEntry, PublicActor } from '#application/history/history-entry.js';
import type { WebhookView } from '#application/webhooks/webhook.use-cases.js';
import type { DeliveryAttempt, DeliveryView } from '#application/webhooks/webhook-deliveries.store.js';
import type { BlazarErrorBody } from '../http/blazar-error.js';
import type { LeaseRequestDetailView, LeaseRequestView } from '../lease-requests/lease-request.view.js';
import type { MaintenanceWindowView } from '../maintenance/maintenance.view.js';
import { MAINTAINED_KINDS } from '#application/maintenance/maintained-kinds.js';
import type { FairShareBasis, FairShareView } from '#application/fair-share/fair-share.queries.js';
import type { AllocatedReservation, FloatingIpAllocationView, HostAllocationView, SlotsHeld } from '#read-model/read-model.queries.js';
import { type JsonSchema, ref } from './json-schema.js';
import { HOST_DOWN_REASONS } from '#domain/index.js';

/**
 * Response bodies, written by hand: the views are TypeScript interfaces, not classes, so there is
 * no metadata to read. Each property list is typed against its interface (a key missing or extra
 * fails to compile), and the e2e suite checks real responses against these schemas.
 */

/** Exactly the named keys of T (an index signature, as HostView's capabilities, is left out). */
type PropertiesOf<T> = { readonly [K in keyof T as string extends K ? never : number extends K ? never : K]-?: JsonSchema };

/** Every member of a string union, checked at compile time. */
const every =
  <T extends string>() =>
  <const A extends readonly T[]>(
    values: A & ([Exclude<T, A[number]>] extends [never] ? unknown : { missing: Exclude<T, A[number]> }),
  ): T[] => [...values];

const object = <T>(properties: PropertiesOf<T>, extra: JsonSchema = {}): JsonSchema => ({
  type: 'object',
  ...extra,
  properties: properties,
  required: Object.keys(properties),
});

const string: JsonSchema = { type: 'string' };
const uuid: JsonSchema = { type: 'string', format: 'uuid' };
/** created_at/updated_at: Python's `isoformat(' ')`, microseconds only when non-zero. */
const timestamp: JsonSchema = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}(\\.\\d{6})?$',
  examples: ['2030-01-01 12:00:00'],
};
const timestampOrNull: JsonSchema = { ...timestamp, type: ['string', 'null'] };
/** Lease, event and allocation dates: `%Y-%m-%dT%H:%M:%S.%f`. */
const blazarDate: JsonSchema = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}$',
  examples: ['2030-01-01T12:00:00.000000'],
};

const LeaseEvent = object<LeaseEventView>({
  created_at: timestamp,
  updated_at: timestampOrNull,
  id: uuid,
  lease_id: uuid,
  event_type: { enum: every<LeaseEventView['event_type']>()(['start_lease', 'end_lease', 'before_end_lease']) },
  time: blazarDate,
  status: { enum: every<BlazarEventStatus>()(['UNDONE', 'IN_PROGRESS', 'DONE', 'ERROR']) },
});

/** The fields every reservation shows first, in Blazar's order (the resource type among them). */
const reservationCommon = (resourceType: JsonSchema): PropertiesOf<Omit<ReservationViewBase, 'end_action'>> => ({
  created_at: timestamp,
  updated_at: timestampOrNull,
  id: uuid,
  lease_id: uuid,
  resource_id: { ...string, description: "Id of the reservation's plugin row (kept for wire compatibility)." },
  resource_type: resourceType,
  status: { enum: every<BlazarReservationStatus>()(['pending', 'active', 'deleted', 'error']) },
  missing_resources: { type: 'boolean' },
  resources_changed: { type: 'boolean' },
});

/** A view of the registered types (HostReservation, ...): every reservation's fields, its module's, then `end_action`. */
const reservationSchema = ({ view, resourceTypes }: SharedView): JsonSchema => {
  const [only] = resourceTypes;
  return object<ReservationViewBase>({
    ...reservationCommon(resourceTypes.length === 1 ? { const: only } : { enum: [...resourceTypes] }),
    ...(view.openapi as Record<string, JsonSchema>),
    end_action: { const: view.endAction, description: "What happens at the lease's end to what the tenant made with the reservation." },
  });
};

const RESERVATION_SCHEMAS = Object.fromEntries(RESERVATION_VIEWS.map((shared) => [shared.view.name, reservationSchema(shared)]));

const Reservation: JsonSchema = { oneOf: RESERVATION_VIEWS.map(({ view }) => ref(view.name)) };

const Lease = object<LeaseView>({
  created_at: timestamp,
  updated_at: timestampOrNull,
  id: uuid,
  name: { type: 'string', maxLength: 80 },
  user_id: string,
  project_id: string,
  start_date: blazarDate,
  end_date: blazarDate,
  trust_id: { type: ['string', 'null'] },
  status: { enum: every<BlazarLeaseStatus>()(['PENDING', 'STARTING', 'ACTIVE', 'TERMINATING', 'TERMINATED', 'ERROR']) },
  degraded: { type: 'boolean' },
  reservations: { type: 'array', items: ref('Reservation') },
  events: { type: 'array', items: ref('LeaseEvent') },
});

const Host = object<HostView>(
  {
    created_at: timestamp,
    updated_at: timestampOrNull,
    id: string,
    vcpus: { type: 'integer' },
    cpu_info: string,
    hypervisor_type: string,
    hypervisor_version: { type: 'integer' },
    hypervisor_hostname: string,
    service_name: string,
    memory_mb: { type: 'integer' },
    local_gb: { type: 'integer' },
    status: { type: 'null' },
    availability_zone: string,
    trust_id: { type: 'null' },
    reservable: { type: 'boolean' },
    health_status: {
      enum: ['up', 'down'],
      description:
        "Leasehold's addition: the host's health as its monitor last saw it (Nova's service state); a down host gets no new bookings, whatever `reservable` says.",
    },
    health_reasons: { type: 'array', items: { enum: [...HOST_DOWN_REASONS] }, description: 'Why Nova calls it down; empty while up.' },
    health_since: { ...timestamp, description: 'Since when the status holds (the registration, until a monitor reported).' },
    health_monitor: {
      enum: ['notification', 'polling', null],
      description: "Which monitor last reported: Nova's notifications or the os-services poller; null until one has.",
    },
  },
  { description: 'Extra capabilities appear as further top-level keys with string values.', additionalProperties: string },
);

const slotTotal = (what: string): JsonSchema => ({
  type: 'integer',
  description: `${what} the reservation's instance slots take on this host in all (a Leasehold addition; instance reservations only).`,
});

/** Upstream's four keys; an instance reservation adds what it holds on the host. */
const HostAllocatedReservation: JsonSchema = {
  ...object<AllocatedReservation & SlotsHeld>({
    id: uuid,
    lease_id: uuid,
    start_date: blazarDate,
    end_date: blazarDate,
    slots: {
      type: 'integer',
      description: 'Instance slots the reservation holds on this host (a Leasehold addition; instance reservations only).',
    },
    vcpus: slotTotal('vCPUs'),
    memory_mb: slotTotal('Memory (MB)'),
    disk_gb: slotTotal('Disk (GB)'),
  }),
  required: ['id', 'lease_id', 'start_date', 'end_date'],
};

const HostAllocation = object<HostAllocationView>({
  resource_id: { ...string, description: 'The host id.' },
  reservations: { type: 'array', items: HostAllocatedReservation },
});

const FloatingIp = object<FloatingIpView>({
  created_at: timestamp,
  updated_at: timestampOrNull,
  id: uuid,
  floating_network_id: string,
  subnet_id: { type: ['string', 'null'], description: 'Null in standalone mode (no Neutron to ask).' },
  floating_ip_address: { ...string, description: 'IPv4, or IPv6 in its canonical (RFC 5952) form.' },
  reservable: { type: 'boolean' },
});

const FloatingIpAllocation = object<FloatingIpAllocationView>({
  resource_id: { ...uuid, description: 'The floating IP id.' },
  reservations: {
    type: 'array',
    items: object<AllocatedReservation>({ id: uuid, lease_id: uuid, start_date: blazarDate, end_date: blazarDate }),
  },
});

const Flavor = object<FlavorView>(
  {
    id: string,
    name: string,
    ram: { type: 'integer', minimum: 1 },
    disk: { type: 'integer', minimum: 0 },
    swap: { anyOf: [{ type: 'integer', minimum: 1 }, { const: '' }], description: 'MiB; `""` for none, as Nova prints it.' },
    'OS-FLV-EXT-DATA:ephemeral': { type: 'integer', minimum: 0 },
    'OS-FLV-DISABLED:disabled': { const: false },
    vcpus: { type: 'integer', minimum: 1 },
    'os-flavor-access:is_public': { type: 'boolean' },
    rxtx_factor: { type: 'number' },
    extra_specs: { type: 'object', additionalProperties: string },
  },
  { description: "Nova's flavor document (microversion 2.61+, without links)." },
);

interface ResourcePropertySummary {
  readonly property: string;
  readonly private: boolean;
  readonly values: string[];
}

const ResourceProperty: JsonSchema = {
  type: 'object',
  description: '`private` and `values` (the distinct values hosts have) only with `detail=true`.',
  properties: {
    property: string,
    private: { type: 'boolean' },
    values: { type: 'array', items: string },
  } satisfies PropertiesOf<ResourcePropertySummary>,
  required: ['property'],
};

interface ResourcePropertyRecord {
  readonly created_at: string;
  readonly updated_at: string | null;
  readonly id: string;
  readonly resource_type: string;
  readonly property_name: string;
  readonly private: boolean;
}

const ResourcePropertyRecord = object<ResourcePropertyRecord>({
  created_at: blazarDate,
  updated_at: { ...blazarDate, type: ['string', 'null'] },
  id: string,
  // resource properties are the physical host plugin's (upstream's /v1/os-hosts/properties)
  resource_type: { const: physicalHostType.resourceType },
  property_name: string,
  private: { type: 'boolean' },
});

/** GET /v1/plugins (plugins/plugins.controller.ts). */
interface PluginView {
  readonly name: string;
  readonly resource_type: string;
  readonly title: string;
  readonly description: string;
}

const Plugin = object<PluginView>({ name: string, resource_type: string, title: string, description: string });

const stringOrNull: JsonSchema = { type: ['string', 'null'] };

const HistoryEntryFields = object<HistoryEntry>(
  {
    position: { type: 'integer', minimum: 1, description: 'Position in the event log: the order of the list.' },
    recorded_at: {
      type: 'string',
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$',
      examples: ['2030-01-01T12:00:00.123000Z'],
    },
    type: { ...string, pattern: '^[a-z_]+\\.[a-z_]+$', description: 'A public event type of docs/events.md.' },
    actor: object<PublicActor>({
      user_id: stringOrNull,
      project_id: stringOrNull,
      system: { ...stringOrNull, description: '`reactor` or `healing` when Leasehold acted on its own.' },
    }),
    request_id: stringOrNull,
    correlation_id: string,
    causation_id: string,
    summary: string,
    data: { type: 'object', description: "The type's fields (docs/events.md)." },
    changes: {
      type: 'array',
      items: object<FieldChange>({ field: string, before: {}, after: {} }),
      description: "In a lease's history, on a change of the lease or a reservation: each field it set, before and after.",
    },
  },
  { description: 'One event of a history.' },
);

/** Only a lease's changes carry `changes`. */
const HistoryEntrySchema: JsonSchema = {
  ...HistoryEntryFields,
  required: (HistoryEntryFields.required ?? []).filter((name) => name !== 'changes'),
};

const BlazarError = object<BlazarErrorBody>(
  {
    error_code: { type: 'integer', description: 'The HTTP status.' },
    error_message: { ...string, description: "What went wrong, in Blazar's words (python-blazarclient prints it)." },
    error_name: { type: ['integer', 'string'], description: 'The HTTP status again, or `INTERNAL_SERVER_ERROR`.' },
  },
  { description: "Blazar's error body." },
);

const VersionDocument: JsonSchema = {
  type: 'object',
  properties: {
    versions: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { const: 'v1.0' },
          status: { const: 'CURRENT' },
          links: {
            type: 'array',
            items: { type: 'object', properties: { href: { type: 'string', format: 'uri' }, rel: string }, required: ['href', 'rel'] },
          },
          min_version: string,
          max_version: string,
        },
        required: ['id', 'status', 'links', 'min_version', 'max_version'],
      },
    },
  },
  required: ['versions'],
};

/** Webhook times: ISO 8601 UTC, as the public events carry them. */
const isoTime: JsonSchema = { type: 'string', format: 'date-time' };

const Webhook = object<WebhookView>(
  {
    id: string,
    project_id: string,
    user_id: string,
    url: { ...string, format: 'uri' },
    event_types: { type: 'array', items: string },
    created_at: isoTime,
  },
  { description: 'A webhook registration (docs/webhooks.md); the secret is never shown again after it was sent.' },
);

const WebhookDeliveryAttempt = object<DeliveryAttempt>({
  attempt: { type: 'integer', minimum: 1 },
  at: isoTime,
  status_code: { type: ['integer', 'null'], description: "The receiver's HTTP status; null when none came back (see `error`)." },
  error: { type: ['string', 'null'] },
  duration_ms: { type: 'integer', minimum: 0 },
});

const WebhookDelivery = object<DeliveryView>(
  {
    id: { type: 'integer' },
    event_id: string,
    event_type: string,
    lease_id: string,
    position: { type: 'integer', minimum: 1 },
    state: { enum: ['pending', 'delivered', 'gave_up', 'dropped'] },
    queued_at: isoTime,
    attempts: { type: 'array', items: WebhookDeliveryAttempt },
  },
  { description: 'One event sent (or to send) to the webhook, with every attempt.' },
);

/** A kind's maintenance window (`HostMaintenanceWindow`): its resource by the kind's id field. */
const maintenanceWindows = (): Record<string, JsonSchema> =>
  Object.fromEntries(
    MAINTAINED_KINDS.map((kind) => [
      `${kind.title}MaintenanceWindow`,
      object<MaintenanceWindowView>(
        // the id field after the id, as the routes answer it
        { id: uuid, ...{ [kind.idField]: string }, start_date: blazarDate, end_date: blazarDate, reason: string },
        {
          description: `A maintenance window: ${kind.noun} offered to no new lease from \`start_date\` to \`end_date\` (docs/maintenance.md).`,
        },
      ),
    ]),
  );

const leaseRequestProperties: PropertiesOf<LeaseRequestView> = {
  id: uuid,
  name: string,
  project_id: string,
  user_id: string,
  status: { enum: every<LeaseRequestView['status']>()(['queued', 'admitted', 'withdrawn']) },
  reservations: {
    type: 'array',
    items: {
      type: 'object',
      description: 'A reservation as it was asked for: `resource_type` and the fields it gave, as in a lease request.',
    },
  },
  duration: { type: 'integer', minimum: 1, description: 'Minutes.' },
  not_before: blazarDate,
  start_by: blazarDate,
  position: {
    type: ['integer', 'null'],
    minimum: 1,
    description: 'Rank in the queue, 1 for the head, first come first served; null unless queued.',
  },
  lease_id: { ...uuid, type: ['string', 'null'], description: 'The lease it became; null unless admitted.' },
  created_at: timestamp,
  updated_at: timestampOrNull,
};

const LeaseRequest = object<LeaseRequestView>(leaseRequestProperties, { description: 'A lease asked for without dates (docs/queue.md).' });

const LeaseRequestDetail = object<LeaseRequestDetailView>(
  {
    ...leaseRequestProperties,
    predicted_start: {
      ...blazarDate,
      type: ['string', 'null'],
      description: 'The earliest start in [not_before, start_by] the availability search finds now; null when none, or not queued.',
    },
  },
  { description: 'One lease request, with the start the availability search predicts for it now (docs/queue.md).' },
);

const fairShareBasis: PropertiesOf<FairShareBasis> = {
  computed_at: { type: 'string', format: 'date-time' },
  half_life_hours: { type: 'number', minimum: 0 },
  usage_unit: string,
};
const fairShareProject: PropertiesOf<FairShareView> = {
  project_id: string,
  shares: { type: 'number', minimum: 0 },
  normalised_share: { type: 'number', minimum: 0, maximum: 1 },
  decayed_usage: { type: 'number', minimum: 0 },
  normalised_usage: { type: 'number', minimum: 0, maximum: 1 },
  factor: { type: 'number', minimum: 0, maximum: 1 },
};
const FairShareProject = object<FairShareView>(fairShareProject, {
  description: "A project's fair-share standing: factor = 2^(-normalised_usage / normalised_share) (docs/fair-share.md).",
});
const FairShare = object<FairShareBasis & FairShareView>(
  { ...fairShareBasis, ...fairShareProject },
  { description: "One project's standing, and what it was computed with." },
);
const FairShareList = object<FairShareBasis & { projects: unknown }>(
  { ...fairShareBasis, projects: { type: 'array', items: ref('FairShareProject') } },
  { description: 'Every project with shares set or recent usage, by project id, and what they were computed with.' },
);

export const RESPONSE_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  LeaseRequest,
  LeaseRequestDetail,
  Lease,
  Reservation,
  ...RESERVATION_SCHEMAS,
  LeaseEvent,
  Host,
  HostAllocation,
  ...maintenanceWindows(),
  FairShareProject,
  FairShare,
  FairShareList,
  ResourceProperty,
  ResourcePropertyRecord,
  FloatingIp,
  FloatingIpAllocation,
  Flavor,
  Plugin,
  HistoryEntry: HistoryEntrySchema,
  Webhook,
  WebhookDelivery,
  BlazarError,
  VersionDocument,
};

/** `{ key: <schema> }`, the envelope every Blazar response has. */
export const envelope = (key: string, schema: JsonSchema): JsonSchema => ({
  type: 'object',
  properties: { [key]: schema },
  required: [key],
});
export const listOf = (key: string, name: string): JsonSchema => envelope(key, { type: 'array', items: ref(name) });

/** A page of the event feed: `{"events": [...], "next_after": N}`. */
export const feedPage: JsonSchema = {
  type: 'object',
  properties: {
    events: { type: 'array', items: ref('HistoryEntry') },
    next_after: { type: 'integer', minimum: 0, description: 'The position to ask from next (`after`): the last one scanned.' },
  },
  required: ['events', 'next_after'],
};
