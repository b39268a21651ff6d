import type { EffectRecord, Reservation, ResourceType } from '#domain/index.js';
import { compareHostIds } from '../physical-host/host-allocation.policy.js';
import { combineQueries, referencedProperties } from '../query/blazar-query.js';
import { parsePropertyQuery } from '../query/property-query.js';
import { type BlazarRow, text } from './blazar-values.js';

/** Blazar's rows by the column that ties them to a reservation, and the resources the import keeps. */
export interface ReservationRows {
  readonly hostReservations: ReadonlyMap<string, readonly BlazarRow[]>;
  readonly instanceReservations: ReadonlyMap<string, readonly BlazarRow[]>;
  readonly floatingIpReservations: ReadonlyMap<string, readonly BlazarRow[]>;
  readonly requiredFloatingIps: ReadonlyMap<string, readonly BlazarRow[]>;
  readonly hostAllocations: ReadonlyMap<string, readonly BlazarRow[]>;
  readonly floatingIpAllocations: ReadonlyMap<string, readonly BlazarRow[]>;
  readonly hostIds: ReadonlySet<string>;
  /** Floating IP id to its address. */
  readonly addresses: ReadonlyMap<string, string>;
}

/** A reservation pointing at something that is not there: its lease is left out (or the import refused). */
export class DanglingReference extends Error {
  override readonly name = 'DanglingReference';
}

export interface MappedReservation {
  readonly reservation: Reservation;
  /** Capability names its queries read (a host booking records them). */
  readonly propertyNames: readonly string[];
  /** What Blazar's start left in the cloud that the view shows. */
  readonly startEffects: readonly EffectRecord[];
}

/** How a type module reads its reservations from Blazar's `reservations` row and its plugin's rows. */
export interface BlazarReservationReader {
  readonly resourceType: ResourceType;
  read(row: BlazarRow, rows: ReservationRows): MappedReservation;
}

/** The one plugin row of a reservation. */
export const detailRow = (rows: ReadonlyMap<string, readonly BlazarRow[]>, table: string, reservationId: string): BlazarRow => {
  const found = rows.get(reservationId) ?? [];
  if (found.length !== 1) throw new DanglingReference(`reservation ${reservationId} has ${found.length} ${table} rows, not one`);
  return found[0] as BlazarRow;
};

/** The hosts Blazar allocated to a reservation, one per allocation row, each checked to exist. */
export const allocatedHostIds = (rows: ReservationRows, reservationId: string): string[] =>
  (rows.hostAllocations.get(reservationId) ?? []).map((row) => {
    const hostId = text(row, 'compute_host_id');
    if (!rows.hostIds.has(hostId)) {
      throw new DanglingReference(`computehost_allocations ${text(row, 'id')} names host ${hostId}, which does not exist`);
    }
    return hostId;
  });

export const byHostId = <T extends { readonly hostId: string }>(items: T[]): T[] =>
  items.sort((a, b) => compareHostIds(a.hostId, b.hostId));

/** Capability names a query reads; a query Leasehold's parser refuses names none (the reservation is kept as Blazar had it). */
export const propertyNamesOf = (...queries: readonly string[]): readonly string[] => {
  try {
    return referencedProperties(queries.map((q) => parsePropertyQuery(q, 'resourceProperties')).reduce(combineQueries));
  } catch {
    return [];
  }
};
