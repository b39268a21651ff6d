import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { toBlazarDate, toBlazarTimestamp } from './blazar-format.js';

/** The formats as luxon writes them, for any ISO-8601 input: what the slicing fast path must equal. */
const viaLuxon = (iso: string) => {
  const time = DateTime.fromISO(iso, { zone: 'utc' });
  return {
    date: time.toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'000'"),
    timestamp: time.millisecond === 0 ? time.toFormat('yyyy-MM-dd HH:mm:ss') : time.toFormat("yyyy-MM-dd HH:mm:ss.SSS'000'"),
  };
};

const dates = fc.date({ min: new Date('1970-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true });

describe('Blazar date formats', () => {
  it('a date as toISOString writes it (whole seconds or not) reads as luxon formats it', () => {
    fc.assert(
      fc.property(dates, fc.boolean(), (date, wholeSecond) => {
        const iso = new Date(wholeSecond ? Math.floor(date.getTime() / 1000) * 1000 : date.getTime()).toISOString();
        expect({ date: toBlazarDate(iso), timestamp: toBlazarTimestamp(iso) }).toEqual(viaLuxon(iso));
      }),
      { numRuns: 2_000 },
    );
  });

  it.each(['2030-01-01T10:00:00Z', '2030-01-01T12:00:00.5+02:00', '2030-01-01T10:00:00.123456Z', '2030-01-01'])('%s (another ISO-8601 form) goes through luxon', (iso) => {
    expect({ date: toBlazarDate(iso), timestamp: toBlazarTimestamp(iso) }).toEqual(viaLuxon(iso));
  });

  it('examples', () => {
    expect(toBlazarDate('2030-01-01T10:00:00.000Z')).toBe('2030-01-01T10:00:00.000000');
    expect(toBlazarTimestamp('2030-01-01T10:00:00.000Z')).toBe('2030-01-01 10:00:00');
    expect(toBlazarTimestamp('2030-01-01T10:00:00.250Z')).toBe('2030-01-01 10:00:00.250000');
  });
});
