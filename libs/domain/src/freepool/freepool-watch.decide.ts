import type { Command, Decider } from '../shared/decider.js';
import { invalid } from '../shared/errors.js';
import { toMs } from '../shared/interval.js';
import type { FreepoolObservation, FreepoolWatchEvent } from './freepool-watch.events.js';

export const FREEPOOL_WATCH_CATEGORY = 'freepool';

/** One stream per availability zone (the empty zone too: hosts registered without one). */
export const freepoolWatchStream = (zone: string): string => `${FREEPOOL_WATCH_CATEGORY}-${zone}`;

export type ObserveFreepool = Command<'ObserveFreepool', FreepoolObservation>;

/** Whether the zone was last recorded exhausted; nothing recorded yet counts as enough. */
export type FreepoolWatchState = { readonly status: 'Enough' } | { readonly status: 'Exhausted'; readonly since: string };

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const isCount = (n: number): boolean => Number.isInteger(n) && n >= 0;

const check = ({ data }: ObserveFreepool): void => {
  const { reservableHosts, freeHosts, threshold, windowStart, windowEnd, observedAt } = data;
  if (!isCount(reservableHosts) || !isCount(freeHosts) || freeHosts > reservableHosts) {
    throw invalid(
      'INVALID_FREEPOOL_OBSERVATION',
      `free hosts (${freeHosts}) must be a count of at most the reservable hosts (${reservableHosts})`,
    );
  }
  if (!Number.isInteger(threshold) || threshold < 1)
    throw invalid('INVALID_FREEPOOL_OBSERVATION', `the threshold must be a positive integer, got ${threshold}`);
  for (const time of [windowStart, windowEnd, observedAt]) {
    if (!ISO_UTC.test(time) || Number.isNaN(toMs(time)))
      throw invalid('INVALID_FREEPOOL_OBSERVATION', `times must be ISO-8601 UTC, got '${time}'`);
  }
  if (toMs(windowEnd) <= toMs(windowStart)) throw invalid('INVALID_FREEPOOL_OBSERVATION', 'the window must end after it starts');
};

/** An event only when the zone crosses the threshold: below it once, and back once. */
const decide = (command: ObserveFreepool, state: FreepoolWatchState): readonly FreepoolWatchEvent[] => {
  check(command);
  const short = command.data.freeHosts < command.data.threshold;
  if (short && state.status === 'Enough') return [{ type: 'Freepool.Exhausted', data: command.data }];
  if (!short && state.status === 'Exhausted') return [{ type: 'Freepool.Recovered', data: command.data }];
  return [];
};

const evolve = (state: FreepoolWatchState, event: FreepoolWatchEvent): FreepoolWatchState => {
  switch (event.type) {
    case 'Freepool.Exhausted':
      return { status: 'Exhausted', since: event.data.observedAt };
    case 'Freepool.Recovered':
      return { status: 'Enough' };
    default: {
      const _never: never = event;
      return state;
    }
  }
};

export const freepoolWatchDecider: Decider<FreepoolWatchState, ObserveFreepool, FreepoolWatchEvent> = {
  initialState: () => ({ status: 'Enough' }),
  decide,
  evolve,
};
