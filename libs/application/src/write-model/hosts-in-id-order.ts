import type { RegisteredHost } from '#domain/index.js';
import { compareHostIds } from '#plugins/physical-host/host-allocation.policy.js';

/** The registered hosts' places in the index's list (`ids`), in compareHostIds order, and each id's place. */
export interface HostIdOrder {
  readonly ids: readonly string[];
  readonly sorted: readonly number[];
  readonly placeOf: ReadonlyMap<string, number>;
}

const orders = new WeakMap<object, HostIdOrder>();

const sameIds = (ids: readonly string[], hosts: readonly RegisteredHost[]): boolean => {
  if (ids.length !== hosts.length) return false;
  for (let i = 0; i < ids.length; i++) if (ids[i] !== (hosts[i] as RegisteredHost).hostId) return false;
  return true;
};

const orderOf = (hosts: readonly RegisteredHost[]): HostIdOrder => {
  const ids = hosts.map((host) => host.hostId);
  const sorted = ids.map((_, place) => place).sort((a, b) => compareHostIds(ids[a] as string, ids[b] as string));
  return { ids, sorted, placeOf: new Map(ids.map((id, place) => [id, place])) };
};

/**
 * The id order of `hosts` (the index's registered hosts, as `owner` lists them), sorted once per set
 * of hosts rather than once per admission: the list only changes when a host is registered or removed,
 * so a check that its ids are the same, in the same places, keeps the sort of the previous admission.
 */
export const hostIdOrder = (owner: object, hosts: readonly RegisteredHost[]): HostIdOrder => {
  const known = orders.get(owner);
  if (known !== undefined && sameIds(known.ids, hosts)) return known;
  const order = orderOf(hosts);
  orders.set(owner, order);
  return order;
};
