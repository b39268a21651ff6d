import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { toBlazarDate, toBlazarTimestamp } from './blazar-format.js';

/** The formats as luxon writes them: the fast path must give the very same text. */
const byLuxon = {
  date: (iso: string): string => DateTime.fromISO(iso, { zone: 'utc' }).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'000'"),
  timestamp: (iso: string): string => {
    const time = DateTime.fromISO(iso, { zone: 'utc' });
    return time.toFormat(time.millisecond === 0 ? 'yyyy-MM-dd HH:mm:ss' : "yyyy-MM-dd HH:mm:ss.SSS'000'");
  },
};

describe('Blazar date formats', () => {
  it('format any toISOString() instant as luxon does, whole seconds included', () => {
    const instant = fc.oneof(
      fc.date({ min: new Date('1970-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }),
      fc.integer({ min: 0, max: 253_402_300_799 }).map((seconds) => new Date(seconds * 1000)),
    );
    fc.assert(
      fc.property(instant, (date) => {
        const iso = date.toISOString();
        expect([toBlazarDate(iso), toBlazarTimestamp(iso)]).toEqual([byLuxon.date(iso), byLuxon.timestamp(iso)]);
      }),
      { numRuns: 2_000 },
    );
  });

  it('leave other ISO-8601 text (offsets, no fraction, impossible days) to luxon', () => {
    for (const iso of ['2031-05-01T10:00:00+02:00', '2031-05-01T10:00:00Z', '2031-05-01T10:00:00.5Z', '2031-02-30T10:00:00.000Z', '2031-05-01T10:00:00.123456Z']) {
      expect([toBlazarDate(iso), toBlazarTimestamp(iso)]).toEqual([byLuxon.date(iso), byLuxon.timestamp(iso)]);
    }
  });
});
