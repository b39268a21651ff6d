import { STREAM_NAME, type RegexFilter } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../event-store.port.js';
import { HOSTILE_STRINGS } from '../testing/hostile-strings.js';
import { streamPrefix, toStreamName } from './kurrentdb-events.js';
import { matchesFilter, serverFilter } from './kurrentdb-filter.js';

const PREFIX = streamPrefix('leasehold', 'events');

const anEvent = (streamId: string, type: string): RecordedEvent => ({
  id: 'e',
  streamId,
  revision: 0,
  position: 1,
  type,
  data: {},
  metadata: { correlationId: 'c', causationId: 'c', actor: null },
  recordedAt: '2026-11-26T09:00:00.000Z',
});

/** The regex as the server would apply it to stream names (its escapes are the common subset of .NET and JavaScript). */
const serverMatches = (filter: RegexFilter, streamId: string): boolean => new RegExp(filter.regex).test(toStreamName(PREFIX, streamId));

describe('the filter sent with readAll and subscribeToAll', () => {
  it("is this store's stream prefix when no category is asked for, so system events and other logs stay on the server", () => {
    expect(serverFilter(PREFIX, undefined)).toEqual({ filterOn: STREAM_NAME, prefixes: ['leasehold.events.'], checkpointInterval: 1 });
    expect(serverFilter(PREFIX, { categories: [], types: ['Lease.Created'] })).toEqual({
      filterOn: STREAM_NAME,
      prefixes: ['leasehold.events.'],
      checkpointInterval: 1,
    });
  });

  it('narrows to whole categories: the stream named after the category and its dash-prefixed ones, nothing that only begins alike', () => {
    const filter = serverFilter(PREFIX, { categories: ['lease', 'host'] }) as RegexFilter;
    expect(filter.filterOn).toBe(STREAM_NAME);
    for (const streamId of ['lease-1', 'lease', 'host-a-b', 'host-']) expect(serverMatches(filter, streamId)).toBe(true);
    for (const streamId of ['leases-1', 'floatingip-1', 'xlease-1']) expect(serverMatches(filter, streamId)).toBe(false);
    expect(new RegExp(filter.regex).test('leasehold.audit.lease-1')).toBe(false);
    expect(new RegExp(filter.regex).test('$ce-lease')).toBe(false);
  });

  it.each(HOSTILE_STRINGS.filter(({ value }) => value.length < 500))('takes a category with $label literally', ({ value }) => {
    const category = value.replaceAll('-', '');
    const filter = serverFilter(PREFIX, { categories: [category] }) as RegexFilter;
    expect(serverMatches(filter, `${category}-1`)).toBe(true);
    expect(serverMatches(filter, `${category}x-1`)).toBe(false);
  });

  it('falls back to the prefix for categories too long for a regex: the check on the decoded event still decides', () => {
    const long = 'c'.repeat(5_000);
    expect(serverFilter(PREFIX, { categories: [long] })).toEqual({
      filterOn: STREAM_NAME,
      prefixes: ['leasehold.events.'],
      checkpointInterval: 1,
    });
    expect(matchesFilter(anEvent(`${long}-1`, 'T'), { categories: [long] })).toBe(true);
    expect(matchesFilter(anEvent('lease-1', 'T'), { categories: [long] })).toBe(false);
  });

  it('is checked again on the decoded event, where the event types are matched', () => {
    expect(matchesFilter(anEvent('lease-1', 'Lease.Created'), { categories: ['lease'], types: ['Lease.Created'] })).toBe(true);
    expect(matchesFilter(anEvent('lease-1', 'Lease.Started'), { categories: ['lease'], types: ['Lease.Created'] })).toBe(false);
    expect(matchesFilter(anEvent('leases-1', 'Lease.Created'), { categories: ['lease'] })).toBe(false);
    expect(matchesFilter(anEvent('host-1', 'Host.Registered'), { categories: [], types: [] })).toBe(true);
    expect(matchesFilter(anEvent('host-1', 'Host.Registered'), undefined)).toBe(true);
  });
});
