import { describe, expect, it } from 'vitest';
import { HOUR_MS, hoursOf } from '../usage/hours.js';
import { monthsOf, quotaExcess, quotaUse } from './quota.rules.js';
import { QUOTAS } from '#plugins/reservation-holdings.js';
import type { LeaseHolding, QuotaAmounts, QuotaLimits } from './quota.types.js';

const at = (iso: string): number => Date.parse(iso);
const holding = (leaseId: string, start: string, end: string, amounts: QuotaAmounts): LeaseHolding => ({
  leaseId,
  projectId: 'p',
  start: at(start),
  end: at(end),
  amounts,
});
const limits = (set: Partial<QuotaLimits>): QuotaLimits => ({ ...QUOTAS.noLimits, ...set });
const NOW = at('2030-01-10T00:00:00Z');

describe('quotas held at once', () => {
  it('Given 3 hosts held over a window, When a lease for 2 overlaps it partly under a limit of 4, Then it is refused as 5', () => {
    const others = [holding('a', '2030-01-11T00:00:00Z', '2030-01-12T00:00:00Z', { hosts: 3 })];
    const after = holding('b', '2030-01-11T12:00:00Z', '2030-01-13T00:00:00Z', { hosts: 2 });
    expect(quotaExcess(QUOTAS, { limits: limits({ hosts: 4 }), others, before: null, after, now: NOW })).toEqual({
      quota: 'hosts',
      limit: 4,
      wouldBe: 5,
      month: null,
    });
  });

  it('Given 3 hosts held over a window, When a lease for 2 starts where that one ends, Then it is admitted (windows are half-open)', () => {
    const others = [holding('a', '2030-01-11T00:00:00Z', '2030-01-12T00:00:00Z', { hosts: 3 })];
    const after = holding('b', '2030-01-12T00:00:00Z', '2030-01-13T00:00:00Z', { hosts: 2 });
    expect(quotaExcess(QUOTAS, { limits: limits({ hosts: 4 }), others, before: null, after, now: NOW })).toBeNull();
  });

  it('Given two leases that never overlap each other, When a third overlaps both, Then the peak is the larger pair, not the sum of all', () => {
    const others = [
      holding('a', '2030-01-11T00:00:00Z', '2030-01-12T00:00:00Z', { vcpus: 4 }),
      holding('b', '2030-01-12T00:00:00Z', '2030-01-13T00:00:00Z', { vcpus: 6 }),
    ];
    const after = holding('c', '2030-01-11T00:00:00Z', '2030-01-13T00:00:00Z', { vcpus: 4 });
    expect(quotaExcess(QUOTAS, { limits: limits({ vcpus: 10 }), others, before: null, after, now: NOW })).toBeNull();
    expect(quotaExcess(QUOTAS, { limits: limits({ vcpus: 9 }), others, before: null, after, now: NOW })).toEqual({
      quota: 'vcpus',
      limit: 9,
      wouldBe: 10,
      month: null,
    });
  });

  it('Given a limit lowered below what the project holds, When a lease shrinks, Then it is admitted; When it grows, Then it is refused', () => {
    const others = [holding('a', '2030-01-11T00:00:00Z', '2030-01-12T00:00:00Z', { floatingIps: 3 })];
    const before = holding('b', '2030-01-11T00:00:00Z', '2030-01-12T00:00:00Z', { floatingIps: 2 });
    const shrunk = holding('b', '2030-01-11T00:00:00Z', '2030-01-11T12:00:00Z', { floatingIps: 1 });
    const grown = holding('b', '2030-01-11T00:00:00Z', '2030-01-12T00:00:00Z', { floatingIps: 3 });
    const decision = { limits: limits({ floatingIps: 2 }), others, before, now: NOW };
    expect(quotaExcess(QUOTAS, { ...decision, after: shrunk })).toBeNull();
    expect(quotaExcess(QUOTAS, { ...decision, after: grown })).toEqual({ quota: 'floatingIps', limit: 2, wouldBe: 6, month: null });
  });

  it('Given a lease moved later with the same hosts, When only its new part overlaps another, Then that part is what is judged', () => {
    const others = [holding('a', '2030-01-12T00:00:00Z', '2030-01-13T00:00:00Z', { hosts: 3 })];
    const before = holding('b', '2030-01-11T00:00:00Z', '2030-01-12T00:00:00Z', { hosts: 2 });
    const moved = holding('b', '2030-01-11T00:00:00Z', '2030-01-12T06:00:00Z', { hosts: 2 });
    expect(quotaExcess(QUOTAS, { limits: limits({ hosts: 4 }), others, before, after: moved, now: NOW })).toEqual({
      quota: 'hosts',
      limit: 4,
      wouldBe: 5,
      month: null,
    });
  });

  it('Given a past peak, When a lease grows from now on only, Then the past is not judged', () => {
    const others = [holding('a', '2030-01-01T00:00:00Z', '2030-01-05T00:00:00Z', { memoryMb: 4096 })];
    const after = holding('b', '2030-01-02T00:00:00Z', '2030-01-20T00:00:00Z', { memoryMb: 2048 });
    expect(quotaExcess(QUOTAS, { limits: limits({ memoryMb: 4096 }), others, before: null, after, now: NOW })).toBeNull();
  });
});

describe('quotas per calendar month', () => {
  it('Given a lease across a month boundary, When its hours are split, Then each UTC month counts its own part', () => {
    const after = holding('a', '2030-01-31T20:00:00Z', '2030-02-01T10:00:00Z', { hosts: 2 });
    // January: 2 hosts x 4 h = 8; February: 2 x 10 h = 20
    expect(quotaExcess(QUOTAS, { limits: limits({ hostHoursPerMonth: 8 }), others: [], before: null, after, now: NOW })).toEqual({
      quota: 'hostHoursPerMonth',
      limit: 8,
      wouldBe: 20,
      month: '2030-02',
    });
    expect(quotaExcess(QUOTAS, { limits: limits({ hostHoursPerMonth: 20 }), others: [], before: null, after, now: NOW })).toBeNull();
  });

  it('Given hours already spent this month, When a lease adds vCPU-hours past the limit, Then it is refused with the month and the total', () => {
    const others = [holding('a', '2030-01-01T00:00:00Z', '2030-01-02T00:00:00Z', { vcpus: 4 })];
    const after = holding('b', '2030-01-15T00:00:00Z', '2030-01-15T01:30:00Z', { vcpus: 2 });
    expect(quotaExcess(QUOTAS, { limits: limits({ vcpuHoursPerMonth: 98 }), others, before: null, after, now: NOW })).toEqual({
      quota: 'vcpuHoursPerMonth',
      limit: 98,
      wouldBe: 99,
      month: '2030-01',
    });
  });

  it('Given a lease shortened in a month over its limit, When the month spends fewer hours, Then it is admitted', () => {
    const before = holding('a', '2030-01-11T00:00:00Z', '2030-01-21T00:00:00Z', { hosts: 1 });
    const after = holding('a', '2030-01-11T00:00:00Z', '2030-01-15T00:00:00Z', { hosts: 1 });
    expect(quotaExcess(QUOTAS, { limits: limits({ hostHoursPerMonth: 10 }), others: [], before, after, now: NOW })).toBeNull();
  });

  it('Given a 2-minute lease, When it passes a monthly limit, Then it names its hours as a usage report counts them (0.033333)', () => {
    const after = holding('a', '2030-01-15T10:00:00Z', '2030-01-15T10:02:00Z', { hosts: 1 });
    expect(quotaExcess(QUOTAS, { limits: limits({ hostHoursPerMonth: 0 }), others: [], before: null, after, now: NOW })).toEqual({
      quota: 'hostHoursPerMonth',
      limit: 0,
      wouldBe: hoursOf(2 * 60_000),
      month: '2030-01',
    });
    expect(hoursOf(2 * 60_000)).toBe(0.033333);
  });

  it('Given hours past the limit by less than a millionth of an hour, When counted as usage counts them, Then they are within it', () => {
    const others = [holding('a', '2030-01-11T00:00:00Z', '2030-01-11T01:00:00Z', { hosts: 1 })];
    const after = holding('b', '2030-01-12T00:00:00.000Z', '2030-01-12T00:00:00.001Z', { hosts: 1 });
    expect(quotaExcess(QUOTAS, { limits: limits({ hostHoursPerMonth: 1 }), others, before: null, after, now: NOW })).toBeNull();
  });

  it('months: a window in one month is one month; one across a year is split at each first of the month, UTC', () => {
    expect(monthsOf({ start: at('2030-01-10T00:00:00Z'), end: at('2030-01-11T00:00:00Z') })).toEqual([
      { start: at('2030-01-01T00:00:00Z'), end: at('2030-02-01T00:00:00Z') },
    ]);
    expect(
      monthsOf({ start: at('2030-12-31T23:00:00Z'), end: at('2031-01-01T01:00:00Z') }).map((m) => new Date(m.start).toISOString()),
    ).toEqual(['2030-12-01T00:00:00.000Z', '2031-01-01T00:00:00.000Z']);
  });
});

describe('quota use', () => {
  it('Given leases now and later, Then use is what is held now, the peak from now on, and the month so far and planned in hours', () => {
    const holdings = [
      holding('a', '2030-01-09T00:00:00Z', '2030-01-11T00:00:00Z', { hosts: 2 }),
      holding('b', '2030-01-10T12:00:00Z', '2030-01-10T13:00:00Z', { hosts: 3 }),
    ];
    const use = quotaUse(QUOTAS, holdings, NOW);
    expect(use.month).toBe('2030-01');
    expect(use.held.hosts).toBe(2);
    expect(use.peak.hosts).toBe(5);
    expect(use.monthly.hostHoursPerMonth).toBe((2 * 48 * HOUR_MS + 3 * HOUR_MS) / HOUR_MS);
  });

  it("Given a 2-minute lease this month, Then the month's hours are those a usage report shows, to millionths", () => {
    const use = quotaUse(QUOTAS, [holding('a', '2030-01-09T00:00:00Z', '2030-01-09T00:02:00Z', { hosts: 1, vcpus: 3 })], NOW);
    expect(use.monthly).toEqual({ hostHoursPerMonth: 0.033333, vcpuHoursPerMonth: 0.1 });
  });
});
