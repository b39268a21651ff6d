import { type DomainError, conflict } from '#domain/index.js';
import { type ZoneRule, amountFor, describeAmount, hostsOf, zoneName } from '#plugins/zone-rule.js';

/** A zone's compute hosts as the cloud counts them, and those already in the freepool. */
export interface ZonePool {
  readonly zone: string;
  readonly computeHosts: number;
  readonly inFreepool: number;
}

const hosts = (n: number): string => (n === 1 ? '1 host' : `${n} hosts`);

/**
 * Enrolling one more host of the zone must leave at least the floor outside the freepool (in the
 * general pool); 409 naming the floor, the zone and the counts otherwise.
 */
export const checkGeneralPoolFloor = (rule: ZoneRule, hostname: string, pool: ZonePool): void => {
  const amount = amountFor(rule, pool.zone);
  if (amount === null) return;
  const floor = hostsOf(amount, pool.computeHosts);
  const outside = pool.computeHosts - pool.inFreepool - 1;
  if (outside < floor) throw floorRefused(hostname, pool, describeAmount(amount), floor, Math.max(outside, 0));
};

const floorRefused = (hostname: string, pool: ZonePool, amount: string, floor: number, outside: number): DomainError =>
  conflict(
    'GENERAL_POOL_FLOOR',
    `Host ${hostname} refused by the general-pool floor (LEASEHOLD_GENERAL_POOL_FLOOR ${amount} in ${zoneName(pool.zone)}): ` +
      `enrolling it would leave ${hosts(outside)} of the zone's ${pool.computeHosts} compute hosts outside the freepool ` +
      `(${pool.inFreepool} already in it), the floor keeps ${hosts(floor)}`,
  );
