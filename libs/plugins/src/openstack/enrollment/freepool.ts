import { FREEPOOL_TRAIT } from '../../reservation-names.js';

/**
 * Where free hosts wait: upstream's one freepool aggregate, or (LEASEHOLD_FREEPOOL_PER_ZONE) one per
 * availability zone, `<name>-<zone>`, so an operator sees each zone's free hosts on their own.
 */
export interface FreepoolLayout {
  /** Upstream's [nova]aggregate_freepool_name. */
  readonly name: string;
  readonly perZone: boolean;
}

/** Metadata key naming the zone a per-zone freepool gathers; the aggregate's own availability_zone stays unset. */
export const FREEPOOL_ZONE_KEY = 'blazar:availability_zone';

export interface FreepoolAggregate {
  readonly name: string;
  /** What the aggregate must carry: the freepool trait's isolation, and the zone of a per-zone pool. */
  readonly metadata: Readonly<Record<string, string>>;
}

/**
 * The freepool of a host in `zone` ('' when Nova puts it in none). No aggregate of ours sets an
 * availability_zone: a host keeps the one its operator's aggregate gives it, also in a reservation's.
 */
export const freepoolFor = (layout: FreepoolLayout, zone: string): FreepoolAggregate => {
  const trait = { [`trait:${FREEPOOL_TRAIT}`]: 'required' };
  if (!layout.perZone || zone === '') return { name: layout.name, metadata: trait };
  return { name: `${layout.name}-${zone}`, metadata: { ...trait, [FREEPOOL_ZONE_KEY]: zone } };
};

/** One of the layout's freepools, of any zone (a host may have changed zones, or the layout its mode, since it joined). */
export const isFreepool = (
  layout: FreepoolLayout,
  aggregate: { readonly name: string; readonly metadata: Readonly<Record<string, string>> },
): boolean => {
  if (aggregate.name === layout.name) return true;
  const zone = aggregate.metadata[FREEPOOL_ZONE_KEY];
  return zone !== undefined && zone !== '' && aggregate.name === `${layout.name}-${zone}`;
};
