import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { parseBlazarDate, parseInstant } from './blazar-dates.js';
import { refusal } from './testing/request-tables.js';

const NOW = DateTime.fromISO('2030-06-08T12:34:56.789Z', { zone: 'utc' });

describe("parseBlazarDate: exactly what upstream's strptime('%Y-%m-%d %H:%M') accepts, or now", () => {
  it.each([
    ['2030-01-01 12:00', '2030-01-01T12:00:00.000Z'],
    ['2030-12-31 23:59', '2030-12-31T23:59:00.000Z'],
    ['2030-01-01 00:00', '2030-01-01T00:00:00.000Z'],
    ['2032-02-29 08:30', '2032-02-29T08:30:00.000Z'],
    ['2030-1-5 3:4', '2030-01-05T03:04:00.000Z'],
    ['2030-01- 5 03:04', '2030-01-05T03:04:00.000Z'],
    ['2030-01-05   03:04', '2030-01-05T03:04:00.000Z'],
  ])('%s', (text, iso) => {
    expect(parseBlazarDate(text, NOW)).toBe(iso);
  });

  it('now is the current minute', () => {
    expect(parseBlazarDate('now', NOW)).toBe('2030-06-08T12:34:00.000Z');
  });

  it.each([
    ['hour 24 (luxon would take it as the next midnight)', '2030-01-01 24:00'],
    ['hour 25', '2030-01-01 25:00'],
    ['minute 60', '2030-01-01 12:60'],
    ['month 13', '2030-13-01 12:00'],
    ['month 0', '2030-00-01 12:00'],
    ['day 0', '2030-01-00 12:00'],
    ['31 April', '2030-04-31 12:00'],
    ['29 February of a common year', '2031-02-29 12:00'],
    ['year 0', '0000-01-01 00:00'],
    ['a 5-digit year', '20300-01-01 12:00'],
    ['a 2-digit year', '30-01-01 12:00'],
    ['seconds', '2030-01-01 12:00:00'],
    ['ISO 8601', '2030-01-01T12:00'],
    ['a time zone', '2030-01-01 12:00Z'],
    ['no time', '2030-01-01'],
    ['a 3-digit hour', '2030-01-01 012:00'],
    ['leading blanks', ' 2030-01-01 12:00'],
    ['trailing blanks', '2030-01-01 12:00 '],
    ['a no-break space between date and time', '2030-01-01\u00a012:00'],
    ['non-ASCII digits', '٢٠٣٠-01-01 12:00'],
    ['Now', 'Now'],
    ['empty', ''],
  ])('refuses %s', (_name, text) => {
    expect(refusal(() => parseBlazarDate(text, NOW))).toEqual({
      status: 400,
      message: `${text} is an invalid date. Required format: %Y-%m-%d %H:%M`,
    });
  });

  it('refuses what is not a string', () => {
    expect(refusal(() => parseBlazarDate(202_001_011_200, NOW)).message).toBe(
      '202001011200 is an invalid date. Required format: %Y-%m-%d %H:%M',
    );
    expect(refusal(() => parseBlazarDate(['2030-01-01 12:00'], NOW)).status).toBe(400);
  });
});

describe("parseInstant: no instant after 9999-12-31 23:59, the last one Blazar's format can write", () => {
  it.each([
    ['9999-12-31 23:59', '9999-12-31T23:59:00.000Z'],
    ['9999-12-31T23:59:00Z', '9999-12-31T23:59:00.000Z'],
    ['9999-12-31T23:59+00:00', '9999-12-31T23:59:00.000Z'],
    ['9999-12-31T23:30:00+01:00', '9999-12-31T22:30:00.000Z'],
  ])('takes %s', (text, iso) => {
    expect(parseInstant('start', text, NOW)).toBe(iso);
  });

  it.each([
    ['an offset that carries it into year 10000', '9999-12-31T23:00:00-05:00'],
    ['a minute later', '9999-12-31T23:59:01Z'],
    ['the last minute in a zone west of UTC', '9999-12-31T23:59-00:01'],
  ])('refuses %s', (_name, text) => {
    expect(refusal(() => parseInstant('start', text, NOW))).toEqual({
      status: 400,
      message: 'Malformed parameter start (must not be after 9999-12-31 23:59 UTC)',
    });
  });
});
