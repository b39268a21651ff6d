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

  it('take every text of the canonical shape, real or not (leap days, hour 24, 31 April, month 13), as luxon does', () => {
    const shaped = fc
      .tuple(
        fc.integer({ min: 1, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 24 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 60 }),
      )
      .map(
        ([y, mo, d, h, mi, s]) =>
          `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}T${String(h).padStart(2, '0')}:${String(mi).padStart(2, '0')}:${String(s).padStart(2, '0')}.250Z`,
      );
    const fixed = [
      '2032-02-29T00:00:00.000Z',
      '2031-02-29T00:00:00.000Z',
      '2100-02-29T00:00:00.000Z',
      '2000-02-29T00:00:00.000Z',
      '2031-04-31T00:00:00.000Z',
      '2031-05-01T24:00:00.000Z',
    ];
    fc.assert(
      fc.property(fc.oneof(shaped, fc.constantFrom(...fixed)), (iso) => {
        expect([toBlazarDate(iso), toBlazarTimestamp(iso)]).toEqual([byLuxon.date(iso), byLuxon.timestamp(iso)]);
      }),
      { numRuns: 2000 },
    );
  });

  it('take the fast path only for the canonical shape: one character of it changed (a digit, its punctuation, a non-ASCII digit) goes to luxon', () => {
    const canonicalText = fc
      .date({ min: new Date('0001-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
      .map((d) => d.toISOString());
    const replacement = fc.constantFrom('0', '9', '-', ':', '.', 'T', 'Z', ' ', '+', '\u0663', 'a', '');
    fc.assert(
      fc.property(canonicalText, fc.nat(24), replacement, (iso, at, c) => {
        const changed = `${iso.slice(0, at)}${c}${iso.slice(at + 1)}`;
        expect([toBlazarDate(changed), toBlazarTimestamp(changed)]).toEqual([byLuxon.date(changed), byLuxon.timestamp(changed)]);
      }),
      { numRuns: 3_000 },
    );
  });

  it('leave other ISO-8601 text (offsets, no fraction, impossible days) to luxon', () => {
    for (const iso of [
      '2031-05-01T10:00:00+02:00',
      '2031-05-01T10:00:00Z',
      '2031-05-01T10:00:00.5Z',
      '2031-02-30T10:00:00.000Z',
      '2031-05-01T10:00:00.123456Z',
    ]) {
      expect([toBlazarDate(iso), toBlazarTimestamp(iso)]).toEqual([byLuxon.date(iso), byLuxon.timestamp(iso)]);
    }
  });
});
