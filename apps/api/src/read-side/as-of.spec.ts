import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { parseAsOf } from './as-of.js';

const NOW = DateTime.fromISO('2030-06-15T12:34:56.789Z', { zone: 'utc' });

const refused = (fragment: string) =>
  expect.objectContaining({ kind: 'invalid', code: 'MALFORMED_PARAMETER', message: expect.stringContaining(fragment) });

describe('as_of query parameter', () => {
  it("takes Blazar's UTC minute, `now` (the current minute) and ISO 8601 with a zone, as an instant in UTC", () => {
    expect(parseAsOf('2030-06-01 08:00', NOW)).toBe('2030-06-01T08:00:00.000Z');
    expect(parseAsOf('2030-6-1 8:5', NOW)).toBe('2030-06-01T08:05:00.000Z');
    expect(parseAsOf('now', NOW)).toBe('2030-06-15T12:34:00.000Z');
    expect(parseAsOf('2030-06-15T14:34:56.789+02:00', NOW)).toBe('2030-06-15T12:34:56.789Z');
    expect(parseAsOf('2030-06-15T12:34:56.789Z', NOW)).toBe('2030-06-15T12:34:56.789Z');
  });

  it('keeps milliseconds and drops what is finer (the log records milliseconds)', () => {
    expect(parseAsOf('2030-06-15T12:34:56.788999Z', NOW)).toBe('2030-06-15T12:34:56.788Z');
  });

  it('refuses an instant after now, to the millisecond', () => {
    expect(() => parseAsOf('2030-06-15T12:34:56.790Z', NOW)).toThrow(refused('is in the future'));
    expect(() => parseAsOf('2030-06-15 12:35', NOW)).toThrow(refused('is in the future'));
  });

  it.each(['2030-06-01', '2030-06-01T10:00:00', '2030-02-30T00:00:00Z', 'yesterday', '2030-06-01 24:00', '', '1717171717'])(
    'refuses %j',
    (value) => {
      expect(() => parseAsOf(value, NOW)).toThrow(
        refused('Malformed parameter as_of (must be %Y-%m-%d %H:%M in UTC, or ISO 8601 with a zone)'),
      );
    },
  );

  it('refuses a parameter given twice', () => {
    expect(() => parseAsOf(['2030-06-01 08:00', '2030-06-01 09:00'], NOW)).toThrow(refused('must be given once'));
  });
});
