import { ref } from './json-schema.js';
import type { OperationDoc } from './operation-doc.js';
import { AVAILABILITY_PARAMETERS } from '../http/route-parameters.js';
import { FLOATING_IP_SORTING, HOST_ALLOCATION_SORTING, HOST_SORTING, LEASE_SORTING } from '#application/queries/read.queries.js';
import { envelope, feedPage, listOf } from './response-schemas.js';
import { NETWORK_OPERATIONS } from '../networks/network.openapi.js';
import { MAINTENANCE_OPERATIONS } from '../maintenance/maintenance.openapi.js';
import { QUOTAS, USAGE_METRICS } from '#plugins/reservation-holdings.js';
import { MAX_SHARES, MIN_SHARES, type QuotaName } from '#domain/index.js';

const codeList = (names: readonly string[]): string => names.map((name) => `\`${name}\``).join(', ');
const fieldOf = (name: QuotaName): string => QUOTAS.wording[name].field;

export const TAGS = [
  { name: 'versions', description: 'API version discovery (no token needed).' },
  { name: 'health', description: 'Liveness and readiness probes (no token needed).' },
  {
    name: 'pages',
    description: 'Pages for people (HTML, no token needed to load them; their data comes from /v1 with the token typed in).',
  },
  { name: 'leases', description: 'Leases and their reservations.' },
  { name: 'hosts', description: 'Reservable physical hosts, their allocations and resource properties.' },
  { name: 'plugins', description: 'Supported resource types.' },
  { name: 'floatingips', description: 'Reservable floating IP addresses and their allocations.' },
  { name: 'networks', description: "Reservable network segments (Chameleon's network reservation), their allocations and properties." },
  { name: 'flavors', description: 'The standalone flavor catalog (a Leasehold extension; Nova-shaped).' },
  { name: 'availability', description: 'When a lease request would be admitted (a Leasehold extension).' },
  { name: 'audit', description: 'Writes the API refused (a Leasehold extension).' },
  { name: 'webhooks', description: "Signed HTTP deliveries of a project's lease events (a Leasehold extension)." },
  { name: 'events', description: 'The event log, replayable and live (a Leasehold extension).' },
  { name: 'usage', description: 'Usage reports and rate cards (a Leasehold extension; docs/usage.md).' },
  { name: 'quotas', description: 'Per-project quotas enforced at admission (a Leasehold extension; docs/operations.md).' },
  {
    name: 'fair-share',
    description: "Projects' shares and fair-share factors, the queue's order (a Leasehold extension; docs/fair-share.md).",
  },
] as const;

const FLAG = 'A flag: any value except empty, `false`, `0`, `no` and `off` is true.';
const ALLOCATION_FILTERS = {
  lease_id: 'Only allocations of this lease (then also past ones).',
  reservation_id: 'Only allocations of this reservation (then also past ones).',
};

/** OpenStack's list paging; each list names its sort keys. Without any of them the list is complete, as upstream's. */
const paging = (keys: readonly string[]) => ({
  limit:
    'A Leasehold extension in OpenStack style: at most this many items (1 to 1000); a `<collection>_links` entry with `rel: next` points at the next page while more follows.',
  marker: 'The id of the last item of the previous page (400 when no item of the list has it).',
  sort_key: `Sort by this field: ${codeList(keys)} (the first by default); ties by id.`,
  sort_dir: '`asc` (default) or `desc`.',
});

/** `as_of` on the reads of leases, hosts, floating IPs and their allocations. */
const AS_OF = {
  as_of:
    'A Leasehold extension (upstream ignores it): answer exactly as this GET would have at that instant, as recorded: from the last event recorded at or before it, statuses included (the reactor records them), "not yet ended" judged at that instant, 404 for what did not exist yet. `YYYY-MM-DD HH:MM` (UTC), `now` or ISO 8601 with a zone; 400 in the future.',
};

export const OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  ...NETWORK_OPERATIONS,
  ...MAINTENANCE_OPERATIONS,
  'GET /': {
    operationId: 'listVersions',
    tag: 'versions',
    summary: 'List API versions',
    description: 'Version discovery as keystoneauth does it: answered with 300 Multiple Choices.',
    response: { description: 'The versions this service speaks.', schema: ref('VersionDocument') },
  },
  'GET /versions': {
    operationId: 'listVersionsAlias',
    tag: 'versions',
    summary: 'List API versions (alias of `/`)',
    response: { description: 'The versions this service speaks.', schema: ref('VersionDocument') },
  },
  'GET /healthz': {
    operationId: 'live',
    tag: 'health',
    summary: 'Liveness: the process answers',
    response: {
      description:
        'Always `{"status": "ok", "service": "api", "info": {}, "details": {}}` while the process serves (@nestjs/terminus\' format).',
    },
  },
  'GET /readyz': {
    operationId: 'ready',
    tag: 'health',
    summary: 'Readiness: reads are right',
    description:
      "Each read model with its checkpoint, lag behind the log and failure, and @nestjs/terminus' `status`, `info` and `details` (checks `event_log` and `read_models`). 503 while the log or the read models do not answer, or a read model is stopped on an event or lagging.",
    response: { description: 'Ready: every read model is current or catching up in time.' },
  },
  'GET /calendar': {
    operationId: 'calendarPage',
    tag: 'pages',
    summary: 'The calendar page',
    description:
      'An HTML page (a Leasehold extension; docs/calendar.md): hosts and floating IPs down the side, their bookings as bars by lease status, a host capability filter, zoom from hours to months, and the free windows POST /v1/availability finds for N hosts for D hours. Served without a token; it shows nothing until its own calls to /v1, with the token typed into it, succeed. Content-Security-Policy: this origin only.',
    response: { description: 'The page (text/html).' },
  },
  'GET /calendar/:asset': {
    operationId: 'calendarAsset',
    tag: 'pages',
    summary: 'A file of the calendar page (its stylesheet and browser modules)',
    parameters: { asset: 'The file name, e.g. `calendar.page.js`.' },
    response: { description: 'The file (text/css or text/javascript).' },
    errors: [404],
  },
  'GET /graphql-explorer/:asset': {
    operationId: 'graphqlExplorerAsset',
    tag: 'pages',
    summary: 'A file of GraphiQL, the page a browser gets at /graphql (docs/graphql.md)',
    parameters: { asset: 'The file name, e.g. `graphiql.min.js`.' },
    response: { description: 'The file (text/css or text/javascript).' },
    errors: [404],
  },
  'GET /v1/leases': {
    operationId: 'listLeases',
    tag: 'leases',
    summary: 'List leases',
    parameters: {
      ...AS_OF,
      status: 'Only leases in this status (a Leasehold extension).',
      project_id: "Only this project's leases (a Leasehold extension; members see only their own project's anyway).",
      ...paging(LEASE_SORTING.keys),
    },
    response: { description: 'The leases, by start date.', schema: listOf('leases', 'Lease') },
  },
  'POST /v1/leases': {
    operationId: 'createLease',
    tag: 'leases',
    summary: 'Create a lease',
    description: 'Books hosts for every reservation at once; a lease that cannot be satisfied is refused (409) and nothing is written.',
    body: { schema: ref('CreateLeaseDto'), required: true },
    response: { description: 'The new lease.', schema: envelope('lease', ref('Lease')) },
    errors: [409],
  },
  'GET /v1/leases/:leaseId': {
    operationId: 'showLease',
    tag: 'leases',
    summary: 'Show a lease',
    parameters: { leaseId: 'The lease id.', ...AS_OF },
    response: { description: 'The lease.', schema: envelope('lease', ref('Lease')) },
    errors: [404],
  },
  'PUT /v1/leases/:leaseId': {
    operationId: 'updateLease',
    tag: 'leases',
    summary: 'Update a lease',
    description: 'Renames, reschedules and/or changes reservations; the hosts are re-booked when needed, or the change is refused (409).',
    parameters: { leaseId: 'The lease id.' },
    body: { schema: ref('UpdateLeaseDto'), required: false },
    response: { description: 'The updated lease.', schema: envelope('lease', ref('Lease')) },
    errors: [404, 409],
  },
  'DELETE /v1/leases/:leaseId': {
    operationId: 'deleteLease',
    tag: 'leases',
    summary: 'Delete a lease',
    parameters: { leaseId: 'The lease id.' },
    response: { description: 'Deleted; its hosts are released.' },
    errors: [404, 409],
  },
  'GET /v1/os-hosts': {
    operationId: 'listHosts',
    tag: 'hosts',
    summary: 'List hosts',
    parameters: { ...AS_OF, ...paging(HOST_SORTING.keys) },
    response: { description: 'The hosts.', schema: listOf('hosts', 'Host') },
  },
  'POST /v1/os-hosts': {
    operationId: 'createHost',
    tag: 'hosts',
    summary: 'Register a host',
    description: 'With LEASEHOLD_CLOUD=openstack the facts come from Nova; a hypervisor that runs servers is refused (409).',
    body: { schema: ref('RegisterHostDto'), required: true },
    response: { description: 'The new host.', schema: envelope('host', ref('Host')) },
    errors: [409],
  },
  'GET /v1/os-hosts/allocations': {
    operationId: 'listAllocations',
    tag: 'hosts',
    summary: 'List host allocations',
    description: 'One entry per host; without a filter, only reservations of leases not yet ended.',
    parameters: { ...ALLOCATION_FILTERS, ...AS_OF, ...paging(HOST_ALLOCATION_SORTING.keys) },
    response: { description: 'The allocations of every host.', schema: listOf('allocations', 'HostAllocation') },
  },
  'GET /v1/os-hosts/properties': {
    operationId: 'listResourceProperties',
    tag: 'hosts',
    summary: 'List resource properties',
    parameters: {
      detail: `Include \`private\` and the values hosts have. ${FLAG}`,
      all: `Include private properties (admins only). ${FLAG}`,
    },
    response: { description: 'The properties, by name.', schema: listOf('resource_properties', 'ResourceProperty') },
  },
  'PATCH /v1/os-hosts/properties/:name': {
    operationId: 'updateResourceProperty',
    tag: 'hosts',
    summary: 'Make a resource property private or public',
    parameters: { name: 'The property (extra capability) name.' },
    body: { schema: ref('PropertyPrivacyDto'), required: true },
    response: { description: 'The property.', schema: envelope('resource_property', ref('ResourcePropertyRecord')) },
    errors: [404],
  },
  'GET /v1/os-hosts/:hostId': {
    operationId: 'showHost',
    tag: 'hosts',
    summary: 'Show a host',
    parameters: { hostId: 'The host id.', ...AS_OF },
    response: { description: 'The host.', schema: envelope('host', ref('Host')) },
    errors: [404],
  },
  'PUT /v1/os-hosts/:hostId': {
    operationId: 'updateHost',
    tag: 'hosts',
    summary: "Update a host's extra capabilities or reservability",
    parameters: { hostId: 'The host id.' },
    body: { schema: ref('HostUpdate'), required: true },
    response: { description: 'The updated host.', schema: envelope('host', ref('Host')) },
    errors: [404, 409],
  },
  'DELETE /v1/os-hosts/:hostId': {
    operationId: 'deleteHost',
    tag: 'hosts',
    summary: 'Unregister a host',
    description: 'Refused (409) while the host has reservations, or (LEASEHOLD_CLOUD=openstack) while Nova runs servers on it.',
    parameters: { hostId: 'The host id.' },
    response: { description: 'Unregistered.' },
    errors: [404, 409],
  },
  'GET /v1/os-hosts/:hostId/allocation': {
    operationId: 'showHostAllocation',
    tag: 'hosts',
    summary: "Show a host's allocation",
    parameters: { hostId: 'The host id.', ...ALLOCATION_FILTERS },
    response: { description: "The host's allocation.", schema: envelope('allocation', ref('HostAllocation')) },
    errors: [404],
  },
  'GET /v1/floatingips': {
    operationId: 'listFloatingIps',
    tag: 'floatingips',
    summary: 'List floating IPs',
    parameters: { ...AS_OF, ...paging(FLOATING_IP_SORTING.keys) },
    response: { description: 'The floating IPs, in registration order.', schema: listOf('floatingips', 'FloatingIp') },
  },
  'POST /v1/floatingips': {
    operationId: 'createFloatingIp',
    tag: 'floatingips',
    summary: 'Register a floating IP',
    description: 'An address is registered once per network (409 otherwise; upstream answers 500).',
    body: { schema: ref('RegisterFloatingIpDto'), required: true },
    response: { description: 'The new floating IP.', schema: envelope('floatingip', ref('FloatingIp')) },
    errors: [409],
  },
  'GET /v1/floatingips/allocations': {
    operationId: 'listFloatingIpAllocations',
    tag: 'floatingips',
    summary: 'List floating-IP allocations',
    description:
      'A Leasehold extension, as `/v1/os-hosts/allocations`: one entry per floating IP; without a filter, only reservations of leases not yet ended.',
    parameters: { ...ALLOCATION_FILTERS, ...AS_OF },
    response: { description: 'The allocations of every floating IP.', schema: listOf('allocations', 'FloatingIpAllocation') },
  },
  'GET /v1/floatingips/:floatingIpId': {
    operationId: 'showFloatingIp',
    tag: 'floatingips',
    summary: 'Show a floating IP',
    parameters: { floatingIpId: 'The floating IP id.', ...AS_OF },
    response: { description: 'The floating IP.', schema: envelope('floatingip', ref('FloatingIp')) },
    errors: [404],
  },
  'DELETE /v1/floatingips/:floatingIpId': {
    operationId: 'deleteFloatingIp',
    tag: 'floatingips',
    summary: 'Unregister a floating IP',
    description: 'Refused (409) while a reservation holds it and has not ended.',
    parameters: { floatingIpId: 'The floating IP id.' },
    response: { description: 'Unregistered.' },
    errors: [404, 409],
  },
  'GET /v1/floatingips/:floatingIpId/allocation': {
    operationId: 'showFloatingIpAllocation',
    tag: 'floatingips',
    summary: "Show a floating IP's allocation",
    parameters: { floatingIpId: 'The floating IP id.', ...ALLOCATION_FILTERS },
    response: { description: "The floating IP's allocation.", schema: envelope('allocation', ref('FloatingIpAllocation')) },
    errors: [404],
  },
  'GET /v1/flavors': {
    operationId: 'listFlavors',
    tag: 'flavors',
    summary: 'List flavors',
    description: 'Admins see every flavor, other callers the public ones; by flavor id.',
    response: { description: 'The flavors.', schema: listOf('flavors', 'Flavor') },
  },
  'POST /v1/flavors': {
    operationId: 'createFlavor',
    tag: 'flavors',
    summary: 'Create a flavor',
    body: { schema: ref('FlavorCreate'), required: true },
    response: { description: 'The new flavor.', schema: envelope('flavor', ref('Flavor')) },
    errors: [409],
  },
  'GET /v1/flavors/:flavorId': {
    operationId: 'showFlavor',
    tag: 'flavors',
    summary: 'Show a flavor',
    description: 'A private flavor is not found (404) by callers who are not admins.',
    parameters: { flavorId: 'The flavor id.' },
    response: { description: 'The flavor.', schema: envelope('flavor', ref('Flavor')) },
    errors: [404],
  },
  'DELETE /v1/flavors/:flavorId': {
    operationId: 'deleteFlavor',
    tag: 'flavors',
    summary: 'Delete a flavor',
    description: 'Reservations made with the flavor keep the sizes they copied.',
    parameters: { flavorId: 'The flavor id.' },
    response: { description: 'Deleted.' },
    errors: [404],
  },
  'GET /v1/plugins': {
    operationId: 'listPlugins',
    tag: 'plugins',
    summary: 'List resource plugins',
    response: { description: 'One plugin per supported resource type.', schema: listOf('plugins', 'Plugin') },
  },
  'POST /v1/lease-requests': {
    operationId: 'submitLeaseRequest',
    tag: 'leases',
    summary: 'Ask for a lease without dates',
    description:
      "A lease `duration` long, to start between `not_before` and `start_by`. One that fits at `not_before` now becomes that lease at once (status `admitted`, `lease_id`), in the same append; one refused for capacity waits in the queue (status `queued`); any other refusal is the request's (a Leasehold extension, `leasehold:lease_requests:post`, default member or admin; docs/queue.md).",
    body: { schema: ref('CreateLeaseRequestDto'), required: true },
    response: { description: 'The request.', schema: envelope('lease_request', ref('LeaseRequestDetail')) },
    errors: [403],
  },
  'GET /v1/lease-requests': {
    operationId: 'listLeaseRequests',
    tag: 'leases',
    summary: 'List lease requests',
    description:
      "The caller's project's requests in submission order, an admin's every project's (`leasehold:lease_requests:get`); without `predicted_start`.",
    response: { description: 'The requests.', schema: listOf('lease_requests', 'LeaseRequest') },
  },
  'GET /v1/lease-requests/:requestId': {
    operationId: 'showLeaseRequest',
    tag: 'leases',
    summary: 'Show a lease request',
    description: 'With its rank in the queue and the start the availability search predicts now (`leasehold:lease_requests:get`).',
    parameters: { requestId: 'The lease request id.' },
    response: { description: 'The request.', schema: envelope('lease_request', ref('LeaseRequestDetail')) },
    errors: [404],
  },
  'DELETE /v1/lease-requests/:requestId': {
    operationId: 'withdrawLeaseRequest',
    tag: 'leases',
    summary: 'Withdraw a lease request',
    description:
      'Only a queued one: an admitted request is refused (409), its lease is deleted instead (`leasehold:lease_requests:delete`).',
    parameters: { requestId: 'The lease request id.' },
    response: { description: 'Withdrawn.' },
    errors: [404, 409],
  },
  'GET /v1/lease-requests/:requestId/history': {
    operationId: 'showLeaseRequestHistory',
    tag: 'leases',
    summary: "A lease request's history",
    description: "Every event of the request's own stream, in log order (types and fields in docs/events.md).",
    parameters: { requestId: 'The lease request id.' },
    response: { description: 'The events, oldest first.', schema: listOf('history', 'HistoryEntry') },
    errors: [404],
  },
  'GET /v1/leases/:leaseId/history': {
    operationId: 'showLeaseHistory',
    tag: 'leases',
    summary: "A lease's history",
    description:
      'Every event of the lease and of its bookings on hosts and floating IPs, in log order (a Leasehold extension; types and fields in docs/events.md). Whoever may read the lease may read it, a deleted lease included.',
    parameters: { leaseId: 'The lease id.' },
    response: { description: 'The events, oldest first.', schema: listOf('history', 'HistoryEntry') },
    errors: [404],
  },
  'GET /v1/os-hosts/:hostId/history': {
    operationId: 'showHostHistory',
    tag: 'hosts',
    summary: "A host's history",
    description:
      "Every event of the host, its Nova activity and its registry entries, every lease's bookings included, in log order (`leasehold:oshosts:history`, default admin).",
    parameters: { hostId: 'The host id.' },
    response: { description: 'The events, oldest first.', schema: listOf('history', 'HistoryEntry') },
    errors: [404],
  },
  'GET /v1/floatingips/:floatingIpId/history': {
    operationId: 'showFloatingIpHistory',
    tag: 'floatingips',
    summary: "A floating IP's history",
    description:
      "Every event of the floating IP and its registry entries, every lease's bookings included, in log order (`leasehold:floatingips:history`, default admin).",
    parameters: { floatingIpId: 'The floating IP id.' },
    response: { description: 'The events, oldest first.', schema: listOf('history', 'HistoryEntry') },
    errors: [404],
  },
  'GET /v1/audit': {
    operationId: 'listRefusedWrites',
    tag: 'audit',
    summary: 'List refused writes',
    description:
      'Writes refused after they were read (403 of the policy, 409 of the rules), oldest first, from the audit log: who, what and why (`leasehold:audit:get`, default admin; docs/events.md). A range spans a year at most.',
    parameters: {
      start: 'From this instant (inclusive); default: a day before `end`.',
      end: 'Until this instant (exclusive); default: now.',
      project_id: "Only this project's refusals.",
      outcome: '`refused` (the only outcome recorded).',
    },
    response: { description: 'The refusals.', schema: listOf('audit', 'HistoryEntry') },
  },
  'GET /v1/webhooks': {
    operationId: 'listWebhooks',
    tag: 'webhooks',
    summary: 'List webhooks',
    description: "Members see their project's webhooks, admins every project's (`leasehold:webhooks:get`).",
    response: { description: 'The webhooks.', schema: listOf('webhooks', 'Webhook') },
  },
  'POST /v1/webhooks': {
    operationId: 'createWebhook',
    tag: 'webhooks',
    summary: 'Register a webhook',
    description:
      "The project's lease events of the listed types are POSTed to `url`, signed with `secret` (docs/webhooks.md; `leasehold:webhooks:post`). 400 while the operator has not switched webhooks on (LEASEHOLD_WEBHOOKS); 403 once the project has LEASEHOLD_WEBHOOK_MAX_PER_PROJECT webhooks.",
    body: { schema: ref('WebhookCreate'), required: true },
    response: { description: 'The new webhook (without its secret).', schema: envelope('webhook', ref('Webhook')) },
  },
  'GET /v1/webhooks/:webhookId': {
    operationId: 'showWebhook',
    tag: 'webhooks',
    summary: 'Show a webhook',
    parameters: { webhookId: 'The webhook id.' },
    response: { description: 'The webhook.', schema: envelope('webhook', ref('Webhook')) },
    errors: [404],
  },
  'DELETE /v1/webhooks/:webhookId': {
    operationId: 'deleteWebhook',
    tag: 'webhooks',
    summary: 'Delete a webhook',
    description: 'Nothing more is sent to it, deliveries still pending included; its secret is erased (`leasehold:webhooks:delete`).',
    parameters: { webhookId: 'The webhook id.' },
    response: { description: 'Deleted.' },
    errors: [404],
  },
  'GET /v1/webhooks/:webhookId/deliveries': {
    operationId: 'listWebhookDeliveries',
    tag: 'webhooks',
    summary: "A webhook's deliveries",
    description:
      'The newest 500 deliveries, each with every attempt (time, HTTP status or error, duration), as the publisher recorded them.',
    parameters: { webhookId: 'The webhook id.' },
    response: { description: 'The deliveries, newest first.', schema: listOf('deliveries', 'WebhookDelivery') },
    errors: [404],
  },
  'GET /v1/events': {
    operationId: 'listEvents',
    tag: 'events',
    summary: 'Read the event log from a position',
    description:
      "Every public event (docs/events.md) in log order, after `after`, as the history routes show them (`leasehold:events:get`, default anyone authenticated). Admins see every event; anyone else only the events of their own project's leases that `blazar:leases:get` lets them read (the leases' own events and their bookings); hosts, floating IPs, flavors and properties are admins' only. Ask again from `next_after`, the last position scanned: a page filtered down to few events never scans the same rows twice. With `Accept: text/event-stream` the same events come as Server-Sent Events, first those already in the log, then each as it is appended: `id:` is the position (a reconnecting EventSource sends it back in `Last-Event-ID`, which wins over `after`), `event:` the public type, `data:` the entry as JSON; a comment line every 15 s when idle. 503 when this server already streams to as many clients as it may (LEASEHOLD_FEED_MAX_STREAMS).",
    parameters: {
      after: 'Only events after this log position (default 0: from the start).',
      types: 'Only these public types, comma-separated (docs/events.md); an unknown type is a 400.',
      limit: 'At most this many events in the page (default 100, at most 1000; pages only, a stream sends what there is).',
    },
    response: { description: 'A page of events, oldest first, and where to ask next; or a `text/event-stream`.', schema: feedPage },
    errors: [503],
  },
  'GET /v1/usage': {
    operationId: 'showUsage',
    tag: 'usage',
    summary: 'Usage report',
    description: `Hours of each metric (${codeList(USAGE_METRICS.metrics)}) per group and resource type, folded from what the log recorded (the reactor's start, the end or deletion, changes and healing) and clipped to the window; priced with a rate card when one is named. Members see their own project (\`leasehold:usage:get\`), admins every project (\`leasehold:usage:get_all\`). The body names the log position it was computed at and the instant it counts up to (\`until\`: the window's end, or now if earlier); the same request with that \`as_of_position\` and \`until\` gives the same bytes. docs/usage.md.`,
    parameters: {
      start: 'Window start (inclusive): `YYYY-MM-DD HH:MM` (UTC) or ISO 8601 with a zone; `now` is refused.',
      end: 'Window end (exclusive), after `start`; same forms.',
      project_id: "Only this project's usage (members: their own, the default).",
      group_by: '`project` (default), `lease`, `reservation` or `resource` (the host or floating IP).',
      rate_card:
        'Price with this rate card: `NAME` (the version in effect at `start`, as known at the position) or `NAME:VERSION` (an explicit re-rating).',
      as_of_position: 'Compute at this log position (default: the head), to reproduce an earlier report.',
      until:
        "Count running leases up to this instant (default: now; never in the future; `now` is refused); same forms as `start`. The body's `until` says what was counted up to: with `as_of_position`, it reproduces the report.",
    },
    response: { description: 'The report.' },
    errors: [404],
  },
  'GET /v1/rate-cards': {
    operationId: 'listRateCards',
    tag: 'usage',
    summary: 'List rate cards',
    description: 'The latest version of every rate card, by name (`leasehold:rate_cards:get`, default any authenticated caller).',
    response: { description: 'The rate cards.' },
  },
  'GET /v1/rate-cards/:rateCardName': {
    operationId: 'showRateCard',
    tag: 'usage',
    summary: 'Show a rate card',
    description: 'Its latest version and every version, oldest first.',
    parameters: { rateCardName: 'The rate card name.' },
    response: { description: 'The rate card.' },
    errors: [404],
  },
  'PUT /v1/rate-cards/:rateCardName': {
    operationId: 'publishRateCard',
    tag: 'usage',
    summary: 'Publish a rate card version',
    description:
      "Creates the card or publishes its next version (`leasehold:rate_cards:put`, default admin). Body: `currency` (ISO 4217), `effective_from` (a date), `prices` (price per unit-hour by metric; a metric left out is free), optional `capability_prices` (`[{capability, value, prices}]`: for resources on hosts with that capability value, the first matching entry's prices replace the card's for the metrics it names; the others keep the card's). Reports made with earlier versions never change.",
    parameters: { rateCardName: 'The rate card name.' },
    body: { schema: ref('RateCardPublish'), required: true },
    response: { description: 'The version published.' },
  },
  'GET /v1/quotas/:projectId': {
    operationId: 'showQuota',
    tag: 'quotas',
    summary: "A project's quotas and use",
    description:
      "The limits in effect (`limits`, null: none), the project's own settings (`project_limits`, null: the configured default), what it holds now (`usage`, with this UTC month's hours of each monthly quota), the most it holds at once from now on (`peak_usage`). Members read their own project (`leasehold:quota:get`), admins any.",
    parameters: { projectId: 'The project id.' },
    response: { description: 'The quotas.' },
  },
  'PUT /v1/quotas/:projectId': {
    operationId: 'setQuota',
    tag: 'quotas',
    summary: "Set a project's quotas",
    description: `Admins (\`leasehold:quota:update\`). Body: any of ${codeList(QUOTAS.held.map(fieldOf))} (held at once) and ${codeList(QUOTAS.monthly.map(fieldOf))} (per UTC month), each an integer limit or null (back to the default). A lease create or update that would pass a limit is refused with 403 naming the quota, its limit and what the lease would have made it. Recorded as \`Quota.Set\`.`,
    parameters: { projectId: 'The project id.' },
    body: { schema: ref('QuotaSet'), required: true },
    response: { description: 'The quotas as set, with the use.' },
  },
  'GET /v1/fair-share': {
    operationId: 'listFairShare',
    tag: 'fair-share',
    summary: "Every project's fair-share standing",
    description:
      'Every project with shares set or usage, by project id: its shares (default 1), normalised share, usage (vCPU-hours, decayed with `LEASEHOLD_FAIR_SHARE_HALF_LIFE`), normalised usage and factor, computed now (`leasehold:fair_share:get_all`, default admin).',
    response: { description: 'The standings.', schema: envelope('fair_share', ref('FairShareList')) },
  },
  'GET /v1/fair-share/:projectId': {
    operationId: 'showFairShare',
    tag: 'fair-share',
    summary: "A project's fair-share standing",
    description:
      'Its standing among every project with shares set or usage; a project never seen holds the default shares and has used nothing. Members read their own project (`leasehold:fair_share:get`), admins any.',
    parameters: { projectId: 'The project id.' },
    response: { description: 'The standing.', schema: envelope('fair_share', ref('FairShare')) },
  },
  'PUT /v1/fair-share/:projectId': {
    operationId: 'setFairShare',
    tag: 'fair-share',
    summary: "Set a project's fair-share shares",
    description: `Admins (\`leasehold:fair_share:put\`). Body: \`shares\`, a number from ${MIN_SHARES} to ${MAX_SHARES}, relative to every other project's (default 1). Recorded as \`FairShare.ShareSet\`; answers the project's standing with them.`,
    parameters: { projectId: 'The project id.' },
    body: { schema: ref('FairShareSet'), required: true },
    response: { description: 'The standing with the new shares.', schema: envelope('fair_share', ref('FairShare')) },
  },
  'DELETE /v1/fair-share/:projectId': {
    operationId: 'resetFairShare',
    tag: 'fair-share',
    summary: "Put a project's shares back to the default",
    description:
      "Admins (`leasehold:fair_share:delete`). Recorded as `FairShare.ShareReset`; 404 when the project's shares were never set or already reset.",
    parameters: { projectId: 'The project id.' },
    response: { description: 'Reset.' },
    errors: [404],
  },
  'POST /v1/availability': {
    operationId: 'searchAvailability',
    tag: 'availability',
    summary: 'Earliest windows for a lease request',
    description:
      'The earliest non-overlapping windows of `duration` within [not_before, not_after] in which every reservation (as in `POST /v1/leases`) would be admitted at once, each with how many matching resources are free per reservation. Answered by the admission itself on the current calendars (`leasehold:availability:get`, default members and admins). docs/availability.md.',
    body: { schema: ref('AvailabilityQueryDto'), required: true },
    response: { description: 'The windows, earliest first (empty: none in the range).' },
  },
  'GET /v1/capacity': {
    operationId: 'showCapacity',
    tag: 'availability',
    summary: 'Capacity report',
    description:
      'Per availability zone and step of [start, end): for `physical:host`, the hosts enrolled, reserved whole, reserved by instance slots, free, the peak utilisation (most hosts booked at one instant, over those enrolled) and the largest request the host policy would still admit starting at the step (`largest_request`, e.g. "7 hosts for 24 h", cleaning time included); for `virtual:instance`, the slot capacity (totals x allocation ratios) and the most vCPUs, memory and disk slots hold at one instant. Then per network type and physical network (`network_type`, `physical_network` in place of the zone, `resource_type` `network`), the segments registered, held at the step start, booked in it, free, and the peak utilisation. With `failure_domain`, every lease holding two hosts or more in the range with how many of them share one value of that host capability. Answered from the calendars admission decides on (`leasehold:capacity:get`, default admins). docs/availability.md.',
    parameters: {
      start: 'Report start (inclusive): `YYYY-MM-DD HH:MM` (UTC) or ISO 8601 with a zone; `now` is refused.',
      end: 'Report end (exclusive), after `start`; same forms.',
      step: 'Step length: whole minutes or an ISO 8601 duration (default `PT1H`); at most 2000 steps.',
      duration: 'How long the largest admissible request of each step lasts: whole minutes or an ISO 8601 duration (default `P1D`).',
      failure_domain: 'A host capability whose values name failure domains (`rack`): adds `leases`, each with its hosts per domain.',
    },
    response: { description: 'The report.' },
  },
  'GET /v1/availability': {
    operationId: 'searchAvailabilityForOne',
    tag: 'availability',
    summary: 'Earliest windows for one reservation',
    description:
      'As `POST /v1/availability` for one reservation written as query parameters (`resource_type`, `min`, `max`, `hypervisor_properties`, `resource_properties`, `amount`, ...).',
    parameters: Object.fromEntries(
      Object.entries(AVAILABILITY_PARAMETERS).map(([name, rule]) => [
        name,
        `${rule.description[0]?.toUpperCase() ?? ''}${rule.description.slice(1)}.`,
      ]),
    ),
    response: { description: 'The windows, earliest first.' },
  },
  'GET /v1/leases/:leaseId/extension': {
    operationId: 'showLeaseExtension',
    tag: 'leases',
    summary: 'How far a lease can be prolonged',
    description:
      'The latest end date the lease could be given on the hosts and floating IPs it holds now (null: nothing booked later stands in the way) and the end of the booking that stands in the way (`leasehold:leases:extension`, default readers of its project and admins).',
    parameters: { leaseId: 'The lease id.' },
    response: { description: 'The extension.' },
    errors: [404, 409],
  },
};
