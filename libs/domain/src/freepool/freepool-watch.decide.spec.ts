import { describe, expect, it } from 'vitest';
import { foldEvents } from '../shared/decider.js';
import { type ObserveFreepool, freepoolWatchDecider, freepoolWatchStream } from './freepool-watch.decide.js';
import type { FreepoolWatchEvent } from './freepool-watch.events.js';

const observe = (freeHosts: number, overrides: Partial<ObserveFreepool['data']> = {}): ObserveFreepool => ({
  type: 'ObserveFreepool',
  data: {
    zone: 'az-1',
    reservableHosts: 10,
    freeHosts,
    threshold: 2,
    windowStart: '2030-01-01T00:00:00.000Z',
    windowEnd: '2030-01-02T00:00:00.000Z',
    observedAt: '2030-01-01T00:00:00.000Z',
    ...overrides,
  },
});

const given = (events: readonly FreepoolWatchEvent[]) => foldEvents(freepoolWatchDecider, events);
const when = (events: readonly FreepoolWatchEvent[], command: ObserveFreepool) => freepoolWatchDecider.decide(command, given(events));

describe('the freepool watch of a zone', () => {
  it('records exhaustion once free hosts drop below the threshold', () => {
    expect(when([], observe(1))).toEqual([{ type: 'Freepool.Exhausted', data: observe(1).data }]);
  });

  it('records nothing while there are enough, or while it stays exhausted', () => {
    expect(when([], observe(2))).toEqual([]);
    const exhausted = when([], observe(0));
    expect(when(exhausted, observe(1, { observedAt: '2030-01-01T00:01:00.000Z' }))).toEqual([]);
  });

  it('records the recovery once free hosts are back at the threshold, then watches again', () => {
    const exhausted = when([], observe(0));
    const recovered = when(exhausted, observe(2, { observedAt: '2030-01-01T01:00:00.000Z' }));
    expect(recovered).toEqual([{ type: 'Freepool.Recovered', data: observe(2, { observedAt: '2030-01-01T01:00:00.000Z' }).data }]);
    expect(when([...exhausted, ...recovered], observe(1))).toEqual([expect.objectContaining({ type: 'Freepool.Exhausted' })]);
  });

  it('keeps when the zone went short', () => {
    expect(given(when([], observe(0, { observedAt: '2030-01-01T05:00:00.000Z' })))).toEqual({
      status: 'Exhausted',
      since: '2030-01-01T05:00:00.000Z',
    });
  });

  it.each([
    [observe(-1), 'free hosts (-1) must be a count of at most the reservable hosts (10)'],
    [observe(11), 'free hosts (11) must be a count of at most the reservable hosts (10)'],
    [observe(1.5), 'free hosts (1.5) must be a count of at most the reservable hosts (10)'],
    [observe(1, { threshold: 0 }), 'the threshold must be a positive integer, got 0'],
    [observe(1, { observedAt: '2030-01-01 00:00' }), "times must be ISO-8601 UTC, got '2030-01-01 00:00'"],
    [observe(1, { windowEnd: '2030-01-01T00:00:00.000Z' }), 'the window must end after it starts'],
  ])('refuses an observation that cannot be right: %#', (command, message) => {
    expect(() => when([], command)).toThrow(message);
  });

  it('has a stream per zone', () => {
    expect(freepoolWatchStream('az-1')).toBe('freepool-az-1');
  });
});
