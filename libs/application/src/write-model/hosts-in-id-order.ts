import { compareHostIds } from '#plugins/physical-host/host-allocation.policy.js';

/** The registered hosts' ids in compareHostIds order, each id's place, and the set's version (see WriteIndex). */
export interface HostIdOrder {
  readonly version: number;
  readonly ids: readonly string[];
  readonly placeOf: ReadonlyMap<string, number>;
}

export const hostIdOrderOf = (ids: Iterable<string>, version: number): HostIdOrder => {
  const sorted = [...ids].sort(compareHostIds);
  return { version, ids: sorted, placeOf: new Map(sorted.map((id, place) => [id, place])) };
};
