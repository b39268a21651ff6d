import type { RegisteredHost } from '#domain/index.js';

/** How one lease's hosts spread over the failure domains a host capability names. */
export interface LeaseConcentration {
  readonly leaseId: string;
  /** Distinct hosts the lease holds (whole or by slots) in the frame. */
  readonly hosts: number;
  /** Distinct values of the capability among them. */
  readonly domains: number;
  /** The value most of its hosts share, and how many do (ties: the smallest value). */
  readonly largestShare: { readonly value: string; readonly hosts: number } | null;
  /** Hosts without the capability (their domain is unknown). */
  readonly unlabelled: number;
}

/** Hosts each lease holds within [start, end), for the leases holding two or more (most hold one: no set for them). */
const hostsByLease = (hosts: readonly RegisteredHost[], start: number, end: number): Map<string, Set<RegisteredHost>> => {
  const first = new Map<string, RegisteredHost>();
  const several = new Map<string, Set<RegisteredHost>>();
  for (const host of hosts) {
    for (const booking of host.bookings) {
      if (booking.end <= start || booking.start >= end) continue;
      const held = several.get(booking.leaseId);
      if (held !== undefined) held.add(host);
      else {
        const one = first.get(booking.leaseId);
        if (one === undefined) first.set(booking.leaseId, host);
        else if (one !== host) several.set(booking.leaseId, new Set([one, host]));
      }
    }
  }
  return several;
};

const concentrationOf = (leaseId: string, held: ReadonlySet<RegisteredHost>, capability: string): LeaseConcentration => {
  const shares = new Map<string, number>();
  let unlabelled = 0;
  for (const host of held) {
    const value = host.capabilities[capability];
    if (value === undefined) unlabelled++;
    else shares.set(value, (shares.get(value) ?? 0) + 1);
  }
  let largestShare: LeaseConcentration['largestShare'] = null;
  for (const [value, count] of [...shares].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (largestShare === null || count > largestShare.hosts) largestShare = { value, hosts: count };
  }
  return { leaseId, hosts: held.size, domains: shares.size, largestShare, unlabelled };
};

/**
 * For every lease holding two hosts or more in [start, end), how many of them share one value of the
 * capability (a rack, a PDU): the leases most exposed to one failure first, then by lease id.
 */
export const failureDomainConcentration = (
  hosts: readonly RegisteredHost[],
  capability: string,
  start: number,
  end: number,
): LeaseConcentration[] =>
  [...hostsByLease(hosts, start, end)]
    .map(([leaseId, held]) => concentrationOf(leaseId, held, capability))
    .sort(
      (a, b) => (b.largestShare?.hosts ?? 0) - (a.largestShare?.hosts ?? 0) || (a.leaseId < b.leaseId ? -1 : a.leaseId > b.leaseId ? 1 : 0),
    );
