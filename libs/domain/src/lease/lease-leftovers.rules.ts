import { conflict } from '../shared/errors.js';
import type { RecordLeftovers } from './lease.commands.js';
import type { LeaseEvent } from './lease.events.js';
import type { LeaseState } from './lease.state.js';
import type { Leftover } from './lease.types.js';

const keyOf = (l: Leftover): string => `${l.reservationId}\u0000${l.kind}\u0000${l.id}`;
const canonical = (leftovers: readonly Leftover[]): Leftover[] =>
  [...new Map(leftovers.map((l) => [keyOf(l), { reservationId: l.reservationId, kind: l.kind, id: l.id }])).values()].sort((a, b) =>
    keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0,
  );
const same = (a: readonly Leftover[], b: readonly Leftover[]): boolean =>
  a.length === b.length && a.every((l, i) => keyOf(l) === keyOf(b[i] as Leftover));

/** A lease whose end effects ran: ended, or deleted and ended. */
const endedLease = (state: LeaseState, leaseId: string) => {
  if (state.status === 'Ended' || (state.status === 'Deleted' && state.end === 'done')) return state.lease;
  throw conflict('LEASE_NOT_ENDED', `Lease ${leaseId} has not ended: nothing to reclaim yet`);
};

/**
 * A finding is recorded once: the same leftovers as last time record nothing, another set records
 * Lease.LeftoversFound, none after some records Lease.LeftoversCleared (naming what went).
 */
export const recordLeftovers = ({ data }: RecordLeftovers, state: LeaseState, leaseId: string): LeaseEvent[] => {
  const lease = endedLease(state, leaseId);
  const found = canonical(data.leftovers);
  if (same(found, lease.leftovers)) return [];
  if (found.length === 0) return [{ type: 'Lease.LeftoversCleared', data: { leaseId, leftovers: lease.leftovers, at: data.now } }];
  return [{ type: 'Lease.LeftoversFound', data: { leaseId, leftovers: found, at: data.now } }];
};
