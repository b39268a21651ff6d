import { describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { hostBooked, hostRegistered } from '../testing/calendars.fixture.js';
import { type StreamEvent, appendGiven } from '../testing/given-events.js';
import { WriteIndex } from '../write-model/write-index.js';
import { CalendarIndex, calendarIndexOf } from './calendar-index.js';

/** The sorted lists as (host id, start hour, end hour), for comparison. */
const listed = (calendars: CalendarIndex) => {
  const { members, byStart, byEnd } = calendars.hosts;
  const row = (b: { readonly member: number; readonly start: number; readonly end: number }) => [
    members[b.member]?.hostId,
    new Date(b.start).getUTCHours(),
    new Date(b.end).getUTCHours(),
  ];
  return { byStart: byStart.map(row), byEnd: byEnd.map(row) };
};

const scenario = async (given: readonly StreamEvent[]) => {
  const store = SqliteEventStore.open({ file: ':memory:' });
  await appendGiven(store, given);
  const index = new WriteIndex(store);
  await index.catchUp();
  /** Then the index saw `more`, and the shared lists were refreshed: they equal lists built afresh. */
  const after = async (more: readonly StreamEvent[]) => {
    await appendGiven(store, more);
    await index.catchUp();
    return { patched: listed(calendarIndexOf(index)), fresh: listed(new CalendarIndex().refresh(index)) };
  };
  return { store, index, after };
};

describe('the sorted busy calendars', () => {
  it('list every booking by start and by end', async () => {
    const { store, index } = await scenario([
      hostRegistered('1'),
      hostRegistered('2'),
      hostBooked('1', 'a', { start: 10, end: 18 }),
      hostBooked('2', 'b', { start: 11, end: 12 }),
    ]);
    try {
      expect(listed(calendarIndexOf(index))).toEqual({
        byStart: [
          ['1', 10, 18],
          ['2', 11, 12],
        ],
        byEnd: [
          ['2', 11, 12],
          ['1', 10, 18],
        ],
      });
    } finally {
      await store.close();
    }
  });

  it('follow a write at once (read-your-writes): a booking added, moved or released is in the lists the next search reads', async () => {
    const { store, index, after } = await scenario([
      hostRegistered('1'),
      hostRegistered('2'),
      hostBooked('1', 'a', { start: 10, end: 18 }),
    ]);
    try {
      calendarIndexOf(index);
      const added = await after([hostBooked('2', 'b', { start: 9, end: 20 })]);
      expect(added.patched).toEqual(added.fresh);
      expect(added.patched.byStart).toEqual([
        ['2', 9, 20],
        ['1', 10, 18],
      ]);
      const released = await after([
        { streamId: 'host-1', type: 'Host.BookingReleased', data: { hostId: '1', reservationId: 'a', leaseId: 'lease-1' } },
      ]);
      expect(released.patched).toEqual(released.fresh);
      expect(released.patched.byEnd).toEqual([['2', 9, 20]]);
    } finally {
      await store.close();
    }
  });

  it('rebuild when a host comes (places shift)', async () => {
    const { store, index, after } = await scenario([hostRegistered('1'), hostBooked('1', 'a', { start: 10, end: 18 })]);
    try {
      calendarIndexOf(index);
      const joined = await after([hostRegistered('2'), hostBooked('2', 'b', { start: 12, end: 13 })]);
      expect(joined.patched).toEqual(joined.fresh);
      expect(joined.patched.byEnd).toEqual([
        ['2', 12, 13],
        ['1', 10, 18],
      ]);
    } finally {
      await store.close();
    }
  });
});
