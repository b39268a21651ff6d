import type { LeaseEvent } from '../lease/lease.events.js';
import type { Reservation, ResourceType } from '../lease/lease.types.js';
import type { UsageMetric } from './rate-card.js';

/** What one resource of a reservation accrues of each metric while it runs, per hour (integers; a metric it does not name, 0). */
export type UsageRates = Readonly<Partial<Record<UsageMetric, number>>>;

/** The size a host was registered with: what a whole-host reservation holds of vCPUs, memory and disk. */
export interface HostSize {
  readonly vcpus: number;
  readonly memoryMb: number;
  readonly diskGb: number;
}

/**
 * One resource (host or floating IP) held by one reservation at constant rates over [start, end),
 * as the log recorded it; `end` null: still held at the last event folded.
 */
export interface UsagePiece {
  readonly leaseId: string;
  readonly projectId: string;
  readonly reservationId: string;
  readonly resourceType: ResourceType;
  readonly resourceId: string;
  readonly start: string;
  readonly end: string | null;
  readonly rates: UsageRates;
}

/** The lease events usage depends on; the others (effects, renames, reschedules) change nothing billed. */
export const USAGE_EVENT_TYPES = [
  'Lease.Created',
  'Lease.Started',
  'Reservation.Changed',
  'Reservation.Healed',
  'Lease.EndRequested',
  'Lease.Deleted',
] as const satisfies readonly LeaseEvent['type'][];

/** Rates per resource id of one reservation (its type module's `usage.rates`, with the hosts' sizes at hand). */
export type ReservationRates = (reservation: Reservation) => ReadonlyMap<string, UsageRates>;

const sameRates = (a: UsageRates, b: UsageRates): boolean => {
  const metrics = Object.keys(a) as UsageMetric[];
  return metrics.length === Object.keys(b).length && metrics.every((metric) => a[metric] === b[metric]);
};

/** Where a lease's usage stands: not started, running (pieces open per reservation and resource), or over for good. */
type UsageState =
  | { readonly phase: 'waiting'; readonly reservations: ReadonlyMap<string, Reservation> }
  | { readonly phase: 'running'; readonly reservations: ReadonlyMap<string, Reservation>; readonly open: ReadonlyMap<string, UsagePiece> }
  | { readonly phase: 'over' };

interface Fold {
  readonly leaseId: string;
  readonly projectId: string;
  readonly ratesOf: ReservationRates;
  readonly closed: UsagePiece[];
}

const pieceKey = (reservationId: string, resourceId: string): string => `${reservationId}\u0000${resourceId}`;

const openReservation = (
  fold: Fold,
  reservation: Reservation,
  at: string,
  open: Map<string, UsagePiece>,
  only?: ReadonlySet<string>,
): void => {
  for (const [resourceId, rates] of fold.ratesOf(reservation)) {
    if (only !== undefined && !only.has(resourceId)) continue;
    const { leaseId, projectId } = fold;
    open.set(pieceKey(reservation.id, resourceId), {
      leaseId,
      projectId,
      reservationId: reservation.id,
      resourceType: reservation.resourceType,
      resourceId,
      start: at,
      end: null,
      rates,
    });
  }
};

const close = (fold: Fold, piece: UsagePiece, at: string): void => {
  // a piece opened and closed at one instant held nothing
  if (piece.start !== at) fold.closed.push({ ...piece, end: at });
};

/** A running reservation changed (more instances, other hosts after healing): only resources whose rates changed switch piece. */
const change = (fold: Fold, state: Extract<UsageState, { phase: 'running' }>, reservation: Reservation, at: string): UsageState => {
  const open = new Map(state.open);
  const next = fold.ratesOf(reservation);
  const reopen = new Set<string>();
  for (const [key, held] of state.open) {
    if (held.reservationId !== reservation.id) continue;
    const rates = next.get(held.resourceId);
    if (rates !== undefined && sameRates(rates, held.rates)) continue;
    close(fold, held, at);
    open.delete(key);
  }
  for (const resourceId of next.keys()) if (!open.has(pieceKey(reservation.id, resourceId))) reopen.add(resourceId);
  openReservation(fold, reservation, at, open, reopen);
  return { phase: 'running', reservations: new Map(state.reservations).set(reservation.id, reservation), open };
};

const step = (fold: Fold, state: UsageState, event: LeaseEvent): UsageState => {
  if (state.phase === 'over') return state;
  switch (event.type) {
    case 'Lease.Started': {
      if (state.phase === 'running') return state;
      const open = new Map<string, UsagePiece>();
      for (const reservation of state.reservations.values()) openReservation(fold, reservation, event.data.at, open);
      return { phase: 'running', reservations: state.reservations, open };
    }
    case 'Reservation.Changed':
    case 'Reservation.Healed': {
      const { reservation } = event.data;
      const at = event.type === 'Reservation.Changed' ? event.data.changedAt : event.data.at;
      if (state.phase === 'running') return change(fold, state, reservation, at);
      return { phase: 'waiting', reservations: new Map(state.reservations).set(reservation.id, reservation) };
    }
    case 'Lease.EndRequested':
    case 'Lease.Deleted':
      if (state.phase === 'running') for (const held of state.open.values()) close(fold, held, event.data.at);
      return { phase: 'over' };
    default:
      return state;
  }
};

const byPieceOrder = (a: UsagePiece, b: UsagePiece): number =>
  a.start < b.start
    ? -1
    : a.start > b.start
      ? 1
      : a.reservationId < b.reservationId
        ? -1
        : a.reservationId > b.reservationId
          ? 1
          : a.resourceId < b.resourceId
            ? -1
            : a.resourceId > b.resourceId
              ? 1
              : 0;

/**
 * What a lease held, from its recorded events in log order (the first must be its Lease.Created):
 * the clock runs from Lease.Started (the reactor's record that the start's effects were applied,
 * not the planned date) to the first Lease.EndRequested or Lease.Deleted; a failed or never-reached
 * start holds nothing. A change or healing of a running reservation switches the resources it names
 * at the change's own instant. Pieces still open have `end` null. Sorted by start, reservation, resource.
 */
export const usagePieces = (events: readonly LeaseEvent[], ratesOf: ReservationRates): UsagePiece[] => {
  const creation = events[0];
  if (creation?.type !== 'Lease.Created') return [];
  const { leaseId, projectId, reservations } = creation.data;
  const fold: Fold = { leaseId, projectId, ratesOf, closed: [] };
  let state: UsageState = { phase: 'waiting', reservations: new Map(reservations.map((r) => [r.id, r])) };
  for (const event of events.slice(1)) state = step(fold, state, event);
  const stillOpen = state.phase === 'running' ? [...state.open.values()] : [];
  return [...fold.closed, ...stillOpen].sort(byPieceOrder);
};
