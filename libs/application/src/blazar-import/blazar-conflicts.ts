import { toMs } from '#domain/index.js';
import { reservationType } from '#plugins/reservation-types.js';
import type { ImportProblem, ImportedLease } from './blazar-import.model.js';

/**
 * What the import does with data that breaks Leasehold's invariants (Blazar can double-book under
 * concurrency): `refuse` writes nothing and lists it; `keep-first` keeps the lease Blazar created first
 * and leaves out the later ones that collide with it, and any other broken record; `skip-all` leaves out
 * every lease involved in a double booking, and any other broken record.
 */
export const CONFLICT_POLICIES = ['refuse', 'keep-first', 'skip-all'] as const;
export type ConflictPolicy = (typeof CONFLICT_POLICIES)[number];

interface Hold {
  readonly resource: string;
  readonly whole: boolean;
  readonly leaseId: string;
  readonly reservationId: string;
  readonly start: number;
  readonly end: number;
}

/** What each reservation holds, as its type's module names it: a whole host (no slots), slots on one, an address. */
const holdsOf = (lease: ImportedLease): Hold[] => {
  const window = { leaseId: lease.leaseId, start: toMs(lease.startDate), end: toMs(lease.endDate) };
  return lease.reservations.flatMap(({ reservation: r }) =>
    reservationType(r.resourceType)
      .resources(r)
      .map((resource) => ({
        ...window,
        reservationId: r.id,
        resource: `${resource.kind === 'floatingip' ? 'floating IP' : resource.kind} ${resource.id}`,
        whole: !('slots' in resource) || resource.slots === null,
      })),
  );
};

const collide = (a: Hold, b: Hold): boolean => a.leaseId !== b.leaseId && (a.whole || b.whole) && a.start < b.end && b.start < a.end;

export interface DoubleBooking {
  readonly first: string;
  readonly later: string;
  readonly problem: ImportProblem;
}

/** Leases in the order Blazar created them; pairs of them holding one host (or address) at one instant. */
export const findDoubleBookings = (leases: readonly ImportedLease[]): DoubleBooking[] => {
  const byResource = new Map<string, Hold[]>();
  for (const hold of leases.flatMap(holdsOf)) {
    const holds = byResource.get(hold.resource);
    if (holds === undefined) byResource.set(hold.resource, [hold]);
    else holds.push(hold);
  }
  const found: DoubleBooking[] = [];
  const seen = new Set<string>();
  for (const [resource, holds] of byResource) {
    holds.forEach((a, i) => {
      for (const b of holds.slice(i + 1)) {
        if (!collide(a, b) || seen.has(`${a.leaseId} ${b.leaseId} ${resource}`)) continue;
        seen.add(`${a.leaseId} ${b.leaseId} ${resource}`);
        const message = `${resource} is double-booked: reservation ${a.reservationId} of lease ${a.leaseId} and reservation ${b.reservationId} of lease ${b.leaseId} overlap`;
        found.push({ first: a.leaseId, later: b.leaseId, problem: { kind: 'double_booking', leaseId: b.leaseId, message } });
      }
    });
  }
  return found;
};

/** Leases the policy leaves out of the import for their double bookings (none when it refuses: nothing is written then). */
export const leftOutFor = (
  policy: ConflictPolicy,
  leases: readonly ImportedLease[],
  conflicts: readonly DoubleBooking[],
): ReadonlySet<string> => {
  switch (policy) {
    case 'refuse':
      return new Set();
    case 'skip-all':
      return new Set(conflicts.flatMap((c) => [c.first, c.later]));
    case 'keep-first': {
      const kept = new Set<string>();
      const left = new Set<string>();
      for (const { leaseId } of leases) {
        const clash = conflicts.some((c) => (c.later === leaseId && kept.has(c.first)) || (c.first === leaseId && kept.has(c.later)));
        (clash ? left : kept).add(leaseId);
      }
      return left;
    }
    default: {
      const _never: never = policy;
      return _never;
    }
  }
};
