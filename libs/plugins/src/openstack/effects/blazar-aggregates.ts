import type { Aggregate } from '../nova.client.js';

/**
 * The metadata key upstream Blazar gives every aggregate it makes for a reservation (`[nova]blazar_owner`, the
 * lease's project); Leasehold's reservation aggregates carry it too. A host in such an aggregate is held by a reservation.
 */
export const BLAZAR_OWNER_KEY = 'blazar:owner';

/**
 * The aggregate upstream Blazar made at a reservation's creation (host and instance reservations alike): named by the
 * reservation id and marked with its owner. Null for Leasehold's own reservations, and once Blazar's has been removed.
 */
export const blazarAggregateOf = (aggregates: readonly Aggregate[], reservationId: string): Aggregate | null =>
  aggregates.find((aggregate) => aggregate.name === reservationId && aggregate.metadata[BLAZAR_OWNER_KEY] !== undefined) ?? null;

/** The reservation aggregate (Blazar's or Leasehold's) that lists the compute service `host`, if any. */
export const reservationAggregateHolding = (aggregates: readonly Aggregate[], host: string): Aggregate | null =>
  aggregates.find((aggregate) => aggregate.metadata[BLAZAR_OWNER_KEY] !== undefined && aggregate.hosts.includes(host)) ?? null;
