/** What the calendar shows, built from the REST answers: one row per host or floating IP, one bar per booking. */

export type LeaseStatus = 'PENDING' | 'STARTING' | 'ACTIVE' | 'TERMINATING' | 'TERMINATED' | 'ERROR';

/** A host as `GET /v1/os-hosts` lists it: extra capabilities are further top-level keys. */
export interface HostWire {
  readonly id: string;
  readonly hypervisor_hostname: string;
  readonly [key: string]: unknown;
}

export interface FloatingIpWire {
  readonly id: string;
  readonly floating_ip_address: string;
  readonly floating_network_id: string;
}

export interface AllocatedReservationWire {
  readonly id: string;
  readonly lease_id: string;
  readonly start_date: string;
  readonly end_date: string;
}

export interface AllocationWire {
  readonly resource_id: string;
  readonly reservations: readonly AllocatedReservationWire[];
}

export interface ReservationWire {
  readonly id: string;
  readonly resource_type: string;
  readonly end_action?: string;
  readonly before_end?: string;
}

export interface LeaseWire {
  readonly id: string;
  readonly name: string;
  readonly project_id: string;
  readonly start_date: string;
  readonly end_date: string;
  readonly status: LeaseStatus;
  readonly reservations: readonly ReservationWire[];
}

export interface CalendarData {
  readonly hosts: readonly HostWire[];
  readonly floatingIps: readonly FloatingIpWire[];
  readonly hostAllocations: readonly AllocationWire[];
  readonly floatingIpAllocations: readonly AllocationWire[];
  readonly leases: readonly LeaseWire[];
}

export interface LeaseAllocations {
  readonly hostAllocations: readonly AllocationWire[];
  readonly floatingIpAllocations: readonly AllocationWire[];
}

export interface CalendarBar {
  readonly leaseId: string;
  readonly reservationId: string;
  readonly start: number;
  readonly end: number;
  /** null when the caller may see the booking but not its lease. */
  readonly lease: LeaseWire | null;
}

export interface CalendarRow {
  readonly kind: 'host' | 'floatingip';
  readonly id: string;
  readonly label: string;
  /** Every text field of the host (its extra capabilities among them); empty for a floating IP. */
  readonly fields: Readonly<Record<string, string>>;
  readonly bars: readonly CalendarBar[];
}

/** Blazar's `2030-01-01T12:00:00.000000` (UTC, microseconds) as epoch milliseconds. */
export const parseBlazarDate = (text: string): number => Date.parse(`${text.slice(0, 23)}Z`);

/** An availability window's `2030-01-01 12:00` (UTC) as epoch milliseconds. */
export const parseRequestDate = (text: string): number => Date.parse(`${text.replace(' ', 'T')}:00Z`);

const textFields = (host: HostWire): Record<string, string> =>
  Object.fromEntries(
    Object.entries(host).flatMap(([key, value]) => (typeof value === 'string' || typeof value === 'number' ? [[key, String(value)]] : [])),
  );

const barsOf = (allocations: ReadonlyMap<string, AllocationWire>, id: string, leases: ReadonlyMap<string, LeaseWire>): CalendarBar[] =>
  (allocations.get(id)?.reservations ?? []).map((booking) => ({
    leaseId: booking.lease_id,
    reservationId: booking.id,
    start: parseBlazarDate(booking.start_date),
    end: parseBlazarDate(booking.end_date),
    lease: leases.get(booking.lease_id) ?? null,
  }));

const byResource = (allocations: readonly AllocationWire[]): Map<string, AllocationWire> =>
  new Map(allocations.map((allocation) => [allocation.resource_id, allocation]));

/** Hosts by name, then floating IPs by address. */
export const buildRows = (data: CalendarData): CalendarRow[] => {
  const leases = new Map(data.leases.map((lease) => [lease.id, lease]));
  const hostAllocations = byResource(data.hostAllocations);
  const ipAllocations = byResource(data.floatingIpAllocations);
  const hosts = [...data.hosts]
    .sort((a, b) => a.hypervisor_hostname.localeCompare(b.hypervisor_hostname))
    .map((host): CalendarRow => ({
      kind: 'host',
      id: host.id,
      label: host.hypervisor_hostname,
      fields: textFields(host),
      bars: barsOf(hostAllocations, host.id, leases),
    }));
  const floatingIps = [...data.floatingIps]
    .sort((a, b) => a.floating_ip_address.localeCompare(b.floating_ip_address))
    .map((ip): CalendarRow => ({
      kind: 'floatingip',
      id: ip.id,
      label: ip.floating_ip_address,
      fields: {},
      bars: barsOf(ipAllocations, ip.id, leases),
    }));
  return [...hosts, ...floatingIps];
};

/** Leases ended before `instant` that overlap [start, end), latest end first: their bookings are fetched lease by lease. */
export const endedLeasesIn = (leases: readonly LeaseWire[], start: number, end: number, instant: number): LeaseWire[] =>
  leases
    .filter((lease) => {
      const leaseEnd = parseBlazarDate(lease.end_date);
      return leaseEnd < instant && leaseEnd > start && parseBlazarDate(lease.start_date) < end;
    })
    .sort((a, b) => parseBlazarDate(b.end_date) - parseBlazarDate(a.end_date));

const merged = (base: readonly AllocationWire[], extra: readonly AllocationWire[]): AllocationWire[] => {
  const byId = new Map(base.map((allocation) => [allocation.resource_id, allocation.reservations]));
  for (const allocation of extra) {
    const known = byId.get(allocation.resource_id) ?? [];
    const fresh = allocation.reservations.filter((booking) => !known.some((other) => other.id === booking.id));
    byId.set(allocation.resource_id, [...known, ...fresh]);
  }
  return [...byId].map(([resource_id, reservations]) => ({ resource_id, reservations }));
};

/** The calendar with more bookings (a lease's, fetched by id); a booking already there is not added twice. */
export const withBookings = (data: CalendarData, extra: LeaseAllocations): CalendarData => ({
  ...data,
  hostAllocations: merged(data.hostAllocations, extra.hostAllocations),
  floatingIpAllocations: merged(data.floatingIpAllocations, extra.floatingIpAllocations),
});

export interface FilterTerm {
  readonly key: string;
  readonly value: string;
}

export type ParsedFilter = { readonly ok: true; readonly terms: readonly FilterTerm[] } | { readonly ok: false; readonly problem: string };

/** `rack=r1, gpu=true`: every term must hold. Empty: no filter. */
export const parseFilter = (text: string): ParsedFilter => {
  const terms: FilterTerm[] = [];
  for (const part of text
    .split(',')
    .map((piece) => piece.trim())
    .filter((piece) => piece !== '')) {
    const at = part.indexOf('=');
    const key = part.slice(0, at).trim();
    if (at <= 0 || key === '') return { ok: false, problem: `"${part}" is not key=value` };
    terms.push({ key, value: part.slice(at + 1).trim() });
  }
  return { ok: true, terms };
};

/** A host matches when every term names one of its fields with that value; floating IPs have no capabilities, so a filter hides them. */
export const matchesFilter = (row: CalendarRow, terms: readonly FilterTerm[]): boolean =>
  terms.length === 0 || (row.kind === 'host' && terms.every((term) => row.fields[term.key] === term.value));

/** The terms as Blazar's `resource_properties` query (`["=", "$rack", "r1"]`, several under `"and"`). */
export const resourcePropertiesOf = (terms: readonly FilterTerm[]): string => {
  const clauses = terms.map((term) => ['=', `$${term.key}`, term.value]);
  if (clauses.length === 0) return '';
  return JSON.stringify(clauses.length === 1 ? clauses[0] : ['and', ...clauses]);
};

/** What happens at the end of the reservation behind a bar: its end action, and for hosts the before-end action. */
export const endActionOf = (bar: CalendarBar): string => {
  const reservation = bar.lease?.reservations.find((candidate) => candidate.id === bar.reservationId);
  if (reservation === undefined) return 'unknown';
  const action = reservation.end_action ?? 'none';
  return reservation.before_end === undefined ? action : `${action} (before end: ${reservation.before_end})`;
};
