/** The kinds of resource the calendar has a section of rows for, and how each is listed, named, ordered and filtered. */

export type RowKind = 'host' | 'floatingip' | 'network';

/** One value per kind. */
export type ByKind<T> = { readonly [K in RowKind]: T };

/** A resource as its kind's list route gives it: its fields (extra capabilities among them) are top-level keys. */
export interface ResourceWire {
  readonly id: string;
  readonly [key: string]: unknown;
}

export interface RowKindSpec {
  /** The section's title, what one row is, and what several are. */
  readonly title: string;
  readonly noun: string;
  readonly plural: string;
  /** The route listing the resources, and the key of the list in its answer. */
  readonly list: string;
  readonly listKey: string;
  /** The route listing their bookings (upstream's shape: `resource_id` and `reservations`); `?lease_id=` for one lease's. */
  readonly allocations: string;
  /** The route listing every resource's maintenance windows and the field naming a window's resource. */
  readonly maintenance: { readonly list: string; readonly resourceField: string };
  readonly label: (resource: ResourceWire) => string;
  readonly compare: (a: ResourceWire, b: ResourceWire) => number;
  /** The fields a filter reads; a kind without any is hidden by every filter. */
  readonly fields: (resource: ResourceWire) => Readonly<Record<string, string>>;
  /** Fields every resource of the kind has: the others are its extra capabilities, shown under its label. */
  readonly standardFields: ReadonlySet<string>;
}

/** The sections in the order the page shows them. */
export const ROW_KINDS: readonly RowKind[] = ['host', 'floatingip', 'network'];

const text = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');

const textFields = (resource: ResourceWire): Record<string, string> =>
  Object.fromEntries(
    Object.entries(resource).flatMap(([key, value]) =>
      typeof value === 'string' || typeof value === 'number' ? [[key, String(value)]] : [],
    ),
  );

const byText =
  (field: string) =>
  (a: ResourceWire, b: ResourceWire): number =>
    text(a[field]).localeCompare(text(b[field]));

/** Segment ids as numbers (a VLAN 9 before 150); flat segments have none and come first. */
const bySegmentId = (a: ResourceWire, b: ResourceWire): number =>
  (typeof a.segment_id === 'number' ? a.segment_id : -1) - (typeof b.segment_id === 'number' ? b.segment_id : -1);

const SEGMENT_FIELDS = ['network_type', 'physical_network', 'segment_id'];

export const ROW_KIND_SPECS: ByKind<RowKindSpec> = {
  host: {
    title: 'Hosts',
    noun: 'host',
    plural: 'hosts',
    list: '/v1/os-hosts',
    listKey: 'hosts',
    allocations: '/v1/os-hosts/allocations',
    maintenance: { list: '/v1/os-hosts/maintenance', resourceField: 'host_id' },
    label: (host) => text(host.hypervisor_hostname),
    compare: byText('hypervisor_hostname'),
    fields: textFields,
    standardFields: new Set([
      'created_at',
      'updated_at',
      'id',
      'vcpus',
      'cpu_info',
      'hypervisor_type',
      'hypervisor_version',
      'hypervisor_hostname',
      'service_name',
      'memory_mb',
      'local_gb',
      'status',
      'availability_zone',
      'trust_id',
      'reservable',
    ]),
  },
  floatingip: {
    title: 'Floating IPs',
    noun: 'floating IP',
    plural: 'floating IPs',
    list: '/v1/floatingips',
    listKey: 'floatingips',
    allocations: '/v1/floatingips/allocations',
    maintenance: { list: '/v1/floatingips/maintenance', resourceField: 'floatingip_id' },
    label: (ip) => text(ip.floating_ip_address),
    compare: byText('floating_ip_address'),
    fields: () => ({}),
    standardFields: new Set(),
  },
  network: {
    title: 'Networks',
    noun: 'network segment',
    plural: 'network segments',
    list: '/v1/networks',
    listKey: 'networks',
    allocations: '/v1/networks/allocations',
    maintenance: { list: '/v1/networks/maintenance', resourceField: 'network_id' },
    label: (segment) =>
      SEGMENT_FIELDS.map((field) => text(segment[field]))
        .filter((part) => part !== '')
        .join(' '),
    compare: (a, b) => byText('network_type')(a, b) || byText('physical_network')(a, b) || bySegmentId(a, b),
    fields: textFields,
    standardFields: new Set(['created_at', 'updated_at', 'id', ...SEGMENT_FIELDS]),
  },
};

/** A value per kind, each made from the kind. */
export const byKind = <T>(make: (kind: RowKind) => T): ByKind<T> =>
  Object.fromEntries(ROW_KINDS.map((kind) => [kind, make(kind)])) as ByKind<T>;
