import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { parseAuditQuery } from './audit-request.parser.js';

const NOW = DateTime.fromISO('2030-06-15T12:34:56.789Z', { zone: 'utc' });

describe('GET /v1/audit query', () => {
  it('defaults to the day before now', () => {
    expect(parseAuditQuery({}, NOW)).toEqual({ start: '2030-06-14T12:34:56.789Z', end: '2030-06-15T12:34:56.789Z', projectId: null });
  });

  it("takes Blazar's UTC dates, `now`, and ISO 8601 with a zone, turned to UTC", () => {
    expect(parseAuditQuery({ start: '2030-06-01 08:00', end: 'now', projectId: 'p-1' }, NOW)).toEqual({
      start: '2030-06-01T08:00:00.000Z',
      end: '2030-06-15T12:34:00.000Z',
      projectId: 'p-1',
    });
    expect(parseAuditQuery({ start: '2030-06-01T10:00:00+02:00', end: '2030-06-02T00:00:00.123456Z' }, NOW)).toMatchObject({
      start: '2030-06-01T08:00:00.000Z',
      end: '2030-06-02T00:00:00.123Z',
    });
  });

  it.each(['2030-06-01', '2030-06-01T10:00:00', '2030-02-30T00:00:00Z', 'yesterday', '2030-06-01 24:00', ''])(
    'refuses %j with a 400',
    (value) => {
      expect(() => parseAuditQuery({ start: value }, NOW)).toThrow(
        expect.objectContaining({ kind: 'invalid', message: expect.stringContaining('Malformed parameter start') }),
      );
    },
  );
});
