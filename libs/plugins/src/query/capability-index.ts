import { type HostQuery, capabilityEqualities, equalityKey } from './blazar-query.js';

/** The places (in a host order fixed by the caller) of the hosts that hold each capability value. */
export interface CapabilityIndex {
  /**
   * The places, ascending, of the hosts whose capabilities satisfy every `==` condition of the query on a capability:
   * a superset of the hosts the whole query matches. Null when the query has no such condition to narrow by.
   */
  placesFor(query: HostQuery): readonly number[] | null;
}

const NONE: readonly number[] = [];

/** The places in both ascending lists, ascending. */
const intersect = (a: readonly number[], b: readonly number[]): number[] => {
  const both: number[] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    const [x, y] = [a[i] as number, b[j] as number];
    if (x === y) both.push(x);
    if (x <= y) i++;
    if (y <= x) j++;
  }
  return both;
};

/**
 * An index of capability values over hosts in a fixed order (`capabilitiesAt[place]`, undefined for a place that holds no
 * host): an admission whose query asks for `gpu == true` visits only the hosts that have it, instead of every host.
 */
export const capabilityIndex = (capabilitiesAt: readonly (Readonly<Record<string, string>> | undefined)[]): CapabilityIndex => {
  const byField = new Map<string, Map<string, number[]>>();
  capabilitiesAt.forEach((capabilities, place) => {
    for (const [field, value] of Object.entries(capabilities ?? {})) {
      let byValue = byField.get(field);
      if (byValue === undefined) byField.set(field, (byValue = new Map<string, number[]>()));
      const key = equalityKey(value);
      const places = byValue.get(key);
      if (places === undefined) byValue.set(key, [place]);
      else places.push(place);
    }
  });
  return {
    placesFor: (query) => {
      const lists = capabilityEqualities(query).map((condition) => byField.get(condition.field)?.get(equalityKey(condition.value)) ?? NONE);
      if (lists.length === 0) return null;
      return [...lists].sort((a, b) => a.length - b.length).reduce((narrowed, list) => intersect(narrowed, list));
    },
  };
};
