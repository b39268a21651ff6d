import { type DomainError, conflict } from '#domain/shared/errors.js';
import { type Interval, isFree, widen } from '#domain/shared/interval.js';
import { clearOfMaintenance } from '#domain/shared/maintenance.js';
import { type HostQuery, matchesResource } from '../query/blazar-query.js';
import type { NetworkAllocation } from './network.reservation.js';
import type { NetworkSnapshot } from './network-snapshot.js';

/** A segment's own fields, as Blazar's queries name them (Chameleon's network_segments columns); the rest are capabilities. */
export const SEGMENT_COLUMNS = ['id', 'network_type', 'physical_network', 'segment_id'];

export interface NetworkAllocationRequest {
  readonly query: HostQuery;
  readonly window: Interval;
  readonly cleaningTimeMs: number;
  /** On update: this reservation's own bookings do not make a segment busy. */
  readonly reservationId?: string;
  /** On update: the segment held now, kept while it still matches and is free (and then required, once the lease runs). */
  readonly current?: string;
  readonly keepCurrent?: boolean;
}

export type NetworkAllocationResult =
  | { readonly ok: true; readonly allocation: NetworkAllocation }
  | {
      readonly ok: false;
      readonly matching: number;
      readonly free: number;
      /** Matching segments a maintenance window keeps from the lease. */
      readonly inMaintenance: number;
      readonly keptBusy: boolean;
    };

export type NetworkAllocationFailure = Extract<NetworkAllocationResult, { readonly ok: false }>;

const matches = (query: HostQuery, segment: NetworkSnapshot): boolean =>
  matchesResource(query, {
    columns: {
      id: segment.id,
      network_type: segment.networkType,
      physical_network: segment.physicalNetwork,
      segment_id: segment.segmentId,
    },
    capabilities: segment.capabilities,
  });

/** Segments in a stable order: by type, physical network and id (Chameleon shuffles; a fixed order makes answers repeatable). */
const compareSegments = (a: NetworkSnapshot, b: NetworkSnapshot): number =>
  a.networkType.localeCompare(b.networkType) ||
  (a.physicalNetwork ?? '').localeCompare(b.physicalNetwork ?? '') ||
  (a.segmentId ?? 0) - (b.segmentId ?? 0) ||
  a.id.localeCompare(b.id);

type Period = Pick<NetworkAllocationRequest, 'window' | 'cleaningTimeMs' | 'reservationId'>;

const clearOf = (request: Period, segment: NetworkSnapshot): boolean =>
  clearOfMaintenance(segment, request.window, request.cleaningTimeMs, request.reservationId);

const freeOf = (request: Period, segments: readonly NetworkSnapshot[]): NetworkSnapshot[] => {
  const window = widen(request.window, request.cleaningTimeMs);
  return segments.filter(
    (segment) => isFree(segment.bookings, window, (b) => b.reservationId === request.reservationId) && clearOf(request, segment),
  );
};

/**
 * Picks one registered segment the query matches, free for the window widened by the cleaning time: the one held now when
 * it still qualifies, then a never-booked one (Chameleon's preference), then any, in the stable order. A running
 * reservation keeps its segment or nothing: its network lives on it.
 */
export const allocateNetworkSegment = (
  request: NetworkAllocationRequest,
  segments: readonly NetworkSnapshot[],
): NetworkAllocationResult => {
  const matching = segments.filter((segment) => matches(request.query, segment));
  const free = freeOf(request, matching);
  const own = (b: { readonly reservationId: string }): boolean => b.reservationId === request.reservationId;
  const rank = (segment: NetworkSnapshot): number => (segment.id === request.current ? 0 : segment.bookings.every(own) ? 1 : 2);
  const candidates = request.keepCurrent === true ? free.filter((segment) => segment.id === request.current) : free;
  const [chosen] = [...candidates].sort((a, b) => rank(a) - rank(b) || compareSegments(a, b));
  if (chosen === undefined) {
    const inMaintenance = matching.filter((segment) => !clearOf(request, segment)).length;
    return { ok: false, matching: matching.length, free: free.length, inMaintenance, keptBusy: request.keepCurrent === true };
  }
  const { id: networkId, networkType, physicalNetwork, segmentId } = chosen;
  return { ok: true, allocation: { networkId, networkType, physicalNetwork, segmentId } };
};

/** What the policy chooses among: the segments the query matches, and how many of them are free for the window. */
export const networkSupply = (
  request: Pick<NetworkAllocationRequest, 'query' | 'window' | 'cleaningTimeMs'>,
  segments: readonly NetworkSnapshot[],
): { readonly matching: number; readonly free: number } => {
  const matching = segments.filter((segment) => matches(request.query, segment));
  return { matching: matching.length, free: freeOf(request, matching).length };
};

/** Chameleon answers 400 NotEnoughNetworksAvailable; a shortage of capacity is a 409 here, like hosts and addresses. */
export const notEnoughNetworksError = (failure: NetworkAllocationFailure): DomainError => {
  if (failure.keptBusy) {
    return conflict(
      'NOT_ENOUGH_NETWORKS',
      'Not enough networks available: the segment a running reservation holds is not free, or no longer matches, for the new dates',
    );
  }
  if (failure.free === 0 && failure.inMaintenance > 0) {
    return conflict(
      'NETWORK_IN_MAINTENANCE',
      `Not enough networks available: ${failure.matching} segments match, ${failure.inMaintenance} in maintenance during part of this period, 0 free for the whole lease, 1 requested`,
    );
  }
  return conflict(
    'NOT_ENOUGH_NETWORKS',
    `Not enough networks available: ${failure.matching} segments match, ${failure.free} free for the whole lease, 1 requested`,
  );
};
