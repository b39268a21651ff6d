import { describe, expect, it } from 'vitest';
import { type MaxLeaseDurationPolicy, refuseCreate, refuseUpdate } from './max-lease-duration.rules.js';

const DAY = 86_400;
const policy = (overrides: Partial<MaxLeaseDurationPolicy> = {}): MaxLeaseDurationPolicy => ({
  maxSeconds: DAY,
  exemptProjectIds: new Set(['exempt']),
  extensionWindowHours: 0,
  ...overrides,
});
const lease = (startDate: string, endDate: string) => ({ startDate, endDate });
const CURRENT = lease('2030-01-01T00:00:00.000Z', '2030-01-02T00:00:00.000Z');

describe('max_lease_duration on create', () => {
  it('Given a maximum of a day, When a lease of exactly a day is asked, Then it is allowed', () => {
    expect(refuseCreate(policy(), 'p', CURRENT)).toBeNull();
  });

  it('Given a maximum of a day, When a lease a minute longer is asked, Then it is refused naming both durations', () => {
    expect(refuseCreate(policy(), 'p', lease('2030-01-01T00:00:00.000Z', '2030-01-02T00:01:00.000Z'))).toBe(
      'Lease duration of 86460 seconds must be less than or equal to the maximum of 86400 seconds.',
    );
  });

  it('Given an exempt project, When it asks for a week, Then it is allowed', () => {
    expect(refuseCreate(policy(), 'exempt', lease('2030-01-01T00:00:00.000Z', '2030-01-08T00:00:00.000Z'))).toBeNull();
  });
});

describe('max_lease_duration on update, without the extension window (upstream)', () => {
  it('Given a lease of a day, When it is moved a day later keeping its length, Then it is allowed', () => {
    expect(
      refuseUpdate(policy(), 'p', CURRENT, lease('2030-01-02T00:00:00.000Z', '2030-01-03T00:00:00.000Z'), '2030-01-01T00:00:00.000Z'),
    ).toBeNull();
  });

  it('Given a lease of a day, When it is prolonged by an hour, Then it is refused with the new duration', () => {
    expect(refuseUpdate(policy(), 'p', CURRENT, lease(CURRENT.startDate, '2030-01-02T01:00:00.000Z'), '2030-01-01T23:00:00.000Z')).toBe(
      'Lease duration of 90000 seconds must be less than or equal to the maximum of 86400 seconds.',
    );
  });

  it('Given a lease longer than a lowered maximum, When a change leaves its dates alone, Then it is allowed', () => {
    expect(refuseUpdate(policy({ maxSeconds: 3600 }), 'p', CURRENT, CURRENT, '2030-01-01T00:00:00.000Z')).toBeNull();
  });

  it('Given an exempt project, When its lease is prolonged by a week, Then it is allowed', () => {
    expect(
      refuseUpdate(policy(), 'exempt', CURRENT, lease(CURRENT.startDate, '2030-01-09T00:00:00.000Z'), '2030-01-01T00:00:00.000Z'),
    ).toBeNull();
  });
});

describe('max_lease_duration on update, with a 6-hour extension window (Chameleon)', () => {
  const windowed = policy({ extensionWindowHours: 6 });

  it('Given the window is not open yet, When the lease is prolonged, Then it is refused saying when the window opens', () => {
    expect(refuseUpdate(windowed, 'p', CURRENT, lease(CURRENT.startDate, '2030-01-02T12:00:00.000Z'), '2030-01-01T17:59:00.000Z')).toBe(
      'Lease duration of 129600 seconds exceeds the maximum of 86400 seconds; a lease may be extended beyond it only within the last 6 hours before its end, from 2030-01-01 18:00.',
    );
  });

  it('Given the window is open, When the lease is prolonged by at most the maximum, Then it is allowed', () => {
    expect(
      refuseUpdate(windowed, 'p', CURRENT, lease(CURRENT.startDate, '2030-01-03T00:00:00.000Z'), '2030-01-01T18:00:00.000Z'),
    ).toBeNull();
  });

  it('Given the window is open, When the lease is prolonged by more than the maximum, Then it is refused naming the extension', () => {
    expect(refuseUpdate(windowed, 'p', CURRENT, lease(CURRENT.startDate, '2030-01-03T00:01:00.000Z'), '2030-01-01T20:00:00.000Z')).toBe(
      'Lease extension of 86460 seconds must be less than or equal to the maximum of 86400 seconds.',
    );
  });

  it('Given the window is open, When the start moves earlier past the maximum without prolonging, Then it is refused as too long', () => {
    expect(refuseUpdate(windowed, 'p', CURRENT, lease('2029-12-31T00:00:00.000Z', CURRENT.endDate), '2030-01-01T20:00:00.000Z')).toBe(
      'Lease duration of 172800 seconds must be less than or equal to the maximum of 86400 seconds.',
    );
  });

  it('Given the window is not open, When the change keeps the lease within the maximum, Then it is allowed', () => {
    expect(
      refuseUpdate(windowed, 'p', CURRENT, lease('2030-01-01T06:00:00.000Z', '2030-01-02T06:00:00.000Z'), '2029-12-31T00:00:00.000Z'),
    ).toBeNull();
  });
});
