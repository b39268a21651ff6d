/** What the calendar shows, built from the REST answers: one row per resource (host, floating IP, network segment), one bar per booking. */
import { type ByKind, ROW_KINDS, ROW_KIND_SPECS, type ResourceWire, type RowKind, byKind } from './calendar-kinds.js';

export type LeaseStatus = 'PENDING' | 'STARTING' | 'ACTIVE' | 'TERMINATING' | 'TERMINATED' | 'ERROR';

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

/** A maintenance window as its kind's list gives it (the resource named by the kind's `maintenance.resourceField`). */
export interface MaintenanceWire {
  readonly id: string;
  readonly start_date: string;
  readonly end_date: string;
  readonly reason: string;
  readonly [field: string]: unknown;
}

export interface CalendarData {
  readonly resources: ByKind<readonly ResourceWire[]>;
  readonly allocations: ByKind<readonly AllocationWire[]>;
  readonly maintenance: ByKind<readonly MaintenanceWire[]>;
  readonly leases: readonly LeaseWire[];
}

/** One lease's bookings, by kind. */
export type LeaseAllocations = ByKind<readonly AllocationWire[]>;

export interface CalendarBar {
  readonly leaseId: string;
  readonly reservationId: string;
  readonly start: number;
  readonly end: number;
  /** null when the caller may see the booking but not its lease. */
  readonly lease: LeaseWire | null;
}

/** A span the resource is offered to no lease (docs/maintenance.md). */
export interface MaintenanceBlock {
  readonly windowId: string;
  readonly start: number;
  readonly end: number;
  readonly reason: string;
}

export interface CalendarRow {
  readonly kind: RowKind;
  readonly id: string;
  readonly label: string;
  /** The fields a filter reads (a host's or segment's, extra capabilities among them); none for a floating IP. */
  readonly fields: Readonly<Record<string, string>>;
  readonly bars: readonly CalendarBar[];
  readonly maintenance: readonly MaintenanceBlock[];
}

/** Blazar's `2030-01-01T12:00:00.000000` (UTC, microseconds) as epoch milliseconds. */
export const parseBlazarDate = (text: string): number => Date.parse(`${text.slice(0, 23)}Z`);

/** An availability window's `2030-01-01 12:00` (UTC) as epoch milliseconds. */
export const parseRequestDate = (text: string): number => Date.parse(`${text.replace(' ', 'T')}:00Z`);

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

const blocksOf = (kind: RowKind, windows: readonly MaintenanceWire[], id: string): MaintenanceBlock[] => {
  const field = ROW_KIND_SPECS[kind].maintenance.resourceField;
  return windows
    .filter((window) => window[field] === id)
    .map((window) => ({
      windowId: window.id,
      start: parseBlazarDate(window.start_date),
      end: parseBlazarDate(window.end_date),
      reason: window.reason,
    }));
};

/** A section per kind in the page's order: hosts by name, floating IPs by address, segments by type, physical network and id. */
export const buildRows = (data: CalendarData): CalendarRow[] => {
  const leases = new Map(data.leases.map((lease) => [lease.id, lease]));
  return ROW_KINDS.flatMap((kind) => {
    const spec = ROW_KIND_SPECS[kind];
    const allocations = byResource(data.allocations[kind]);
    return [...data.resources[kind]].sort(spec.compare).map((resource): CalendarRow => ({
      kind,
      id: resource.id,
      label: spec.label(resource),
      fields: spec.fields(resource),
      bars: barsOf(allocations, resource.id, leases),
      maintenance: blocksOf(kind, data.maintenance[kind], resource.id),
    }));
  });
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
  allocations: byKind((kind) => merged(data.allocations[kind], extra[kind])),
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

/** A row matches when every term names one of its fields with that value; floating IPs have none, so a filter hides them. */
export const matchesFilter = (row: CalendarRow, terms: readonly FilterTerm[]): boolean =>
  terms.every((term) => row.fields[term.key] === term.value);

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
