import type { DomainEvent } from '../shared/decider.js';

/** What the watch saw of one availability zone's freepool over its window. */
export interface FreepoolObservation {
  readonly zone: string;
  /** Hosts that take bookings (reservable and up). */
  readonly reservableHosts: number;
  /** Of those, hosts no booking holds at any instant of [windowStart, windowEnd). */
  readonly freeHosts: number;
  /** Fewer free hosts than this is exhaustion. */
  readonly threshold: number;
  readonly windowStart: string;
  readonly windowEnd: string;
  readonly observedAt: string;
}

/** Free capacity over the window dropped below the threshold. */
export type FreepoolExhausted = DomainEvent<'Freepool.Exhausted', FreepoolObservation>;
/** Free capacity over the window is back at or above the threshold. */
export type FreepoolRecovered = DomainEvent<'Freepool.Recovered', FreepoolObservation>;

export type FreepoolWatchEvent = FreepoolExhausted | FreepoolRecovered;

export const FREEPOOL_WATCH_EVENT_TYPES: readonly FreepoolWatchEvent['type'][] = ['Freepool.Exhausted', 'Freepool.Recovered'];
