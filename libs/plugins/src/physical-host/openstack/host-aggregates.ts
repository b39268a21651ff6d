import { blazarAggregateOf } from '../../openstack/effects/blazar-aggregates.js';
import { reservationAggregateName } from '../../openstack/effects/openstack-effects.support.js';
import type { Aggregate } from '../../openstack/nova.client.js';

/** Leasehold's aggregate of a host reservation, `reservation-<id>`, if it exists. */
export const ownAggregateOf = (aggregates: readonly Aggregate[], reservationId: string): Aggregate | null =>
  aggregates.find((aggregate) => aggregate.name === reservationAggregateName(reservationId)) ?? null;

/**
 * The aggregate holding a host reservation's hosts. Blazar's (named by the reservation id) once it holds any: an imported
 * reservation Blazar started keeps it, with its hosts where they are, until its end. Else Leasehold's `reservation-<id>`.
 */
export const heldAggregateOf = (aggregates: readonly Aggregate[], reservationId: string): Aggregate | null => {
  const blazar = blazarAggregateOf(aggregates, reservationId);
  return blazar !== null && blazar.hosts.length > 0 ? blazar : ownAggregateOf(aggregates, reservationId);
};

/** Every aggregate of the reservation still in Nova: Leasehold's, and Blazar's when it was imported (held hosts or not). */
export const aggregatesOf = (aggregates: readonly Aggregate[], reservationId: string): Aggregate[] =>
  [ownAggregateOf(aggregates, reservationId), blazarAggregateOf(aggregates, reservationId)].filter((found) => found !== null);
