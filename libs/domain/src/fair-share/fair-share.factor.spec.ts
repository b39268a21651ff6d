import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '../usage/hours.js';
import { type HeldUnits, decayedUnitHours, decayedUsage, fairShareFactors } from './fair-share.factor.js';
import { rankRequests } from './fair-share.rank.js';

const DAY_MS = 24 * HOUR_MS;
const HALF_LIFE = 7 * DAY_MS;
const NOW = Date.parse('2030-01-01T00:00:00.000Z');
const PROJECTS = ['p1', 'p2', 'p3', 'p4'];

/** A random workload: pieces of the four projects within the 60 days before NOW, some still held. */
const workload = fc.array(
  fc.record({
    projectId: fc.constantFrom(...PROJECTS),
    startMs: fc.integer({ min: NOW - 60 * DAY_MS, max: NOW - 1 }),
    lengthMs: fc.option(fc.integer({ min: 1, max: 10 * DAY_MS }), { nil: null }),
    units: fc.integer({ min: 1, max: 128 }),
  }),
  { maxLength: 30 },
);
const pieces = (drawn: readonly { projectId: string; startMs: number; lengthMs: number | null; units: number }[]): HeldUnits[] =>
  drawn.map(({ projectId, startMs, lengthMs, units }) => ({
    projectId,
    startMs,
    endMs: lengthMs === null ? null : startMs + lengthMs,
    units,
  }));
const sharesOf = fc.dictionary(fc.constantFrom(...PROJECTS), fc.integer({ min: 1, max: 1000 }));

const factorsAt = (held: readonly HeldUnits[], shares: Readonly<Record<string, number>>, nowMs = NOW) =>
  fairShareFactors({ shares: new Map(Object.entries(shares)), usage: decayedUsage(held, nowMs, HALF_LIFE), projects: PROJECTS });
const factorOf = (factors: ReturnType<typeof factorsAt>, projectId: string): number =>
  factors.find((entry) => entry.projectId === projectId)?.factor ?? Number.NaN;

describe('fair-share factor: F = 2^(-U/S), usage decayed with a half-life', () => {
  it('every factor is in (0, 1], and a project that used nothing has 1 and ranks first', () => {
    fc.assert(
      fc.property(workload, sharesOf, (drawn, shares) => {
        const held = pieces(drawn).filter((piece) => piece.projectId !== 'p4');
        const factors = factorsAt(held, shares);
        for (const { factor } of factors) expect(factor > 0 && factor <= 1).toBe(true);
        expect(factorOf(factors, 'p4')).toBe(1);
        const requests = PROJECTS.map((projectId, index) => ({
          requestId: `r${index}`,
          projectId,
          submittedAt: new Date(NOW - index * HOUR_MS).toISOString(),
        }));
        expect(rankRequests(requests, factors)[0]?.projectId).toBe('p4');
      }),
    );
  });

  it('equal shares and equal usage give equal factors, whatever the other projects did', () => {
    fc.assert(
      fc.property(workload, workload, fc.integer({ min: 1, max: 1000 }), (drawn, others, share) => {
        const mine = pieces(drawn).filter((piece) => piece.projectId === 'p1');
        const twin = mine.map((piece) => ({ ...piece, projectId: 'p2' }));
        const rest = pieces(others).filter((piece) => piece.projectId === 'p3');
        const factors = factorsAt([...mine, ...twin, ...rest], { p1: share, p2: share });
        expect(factorOf(factors, 'p1')).toBe(factorOf(factors, 'p2'));
      }),
    );
  });

  it("doubling a project's share lowers its U/S when it used anything, and never lowers its factor", () => {
    fc.assert(
      fc.property(workload, sharesOf, (drawn, shares) => {
        const held = pieces(drawn);
        const before = factorsAt(held, shares).find((entry) => entry.projectId === 'p1');
        const after = factorsAt(held, { ...shares, p1: 2 * (shares.p1 ?? 1) }).find((entry) => entry.projectId === 'p1');
        if (before === undefined || after === undefined) throw new Error('p1 is always ranked');
        expect(after.factor).toBeGreaterThanOrEqual(before.factor);
        if (before.decayedUsage > 0) expect(after.usageOverShare).toBeLessThan(before.usageOverShare);
        else expect(after.factor).toBe(1);
      }),
    );
  });

  it('doubling the share of a project that used a little raises its factor itself', () => {
    const held = [
      { projectId: 'p1', startMs: NOW - 2 * HOUR_MS, endMs: NOW - HOUR_MS, units: 1 },
      { projectId: 'p2', startMs: NOW - 2 * HOUR_MS, endMs: NOW - HOUR_MS, units: 3 },
    ];
    expect(factorOf(factorsAt(held, { p1: 2 }), 'p1')).toBeGreaterThan(factorOf(factorsAt(held, {}), 'p1'));
  });

  it('usage ended a while ago is halved after one more half-life', () => {
    fc.assert(
      fc.property(workload, (drawn) => {
        const ended = pieces(drawn).map((piece) => ({ ...piece, endMs: Math.min(piece.endMs ?? NOW, NOW) }));
        const now = decayedUsage(ended, NOW, HALF_LIFE);
        const later = decayedUsage(ended, NOW + HALF_LIFE, HALF_LIFE);
        for (const [projectId, usage] of now) expect(later.get(projectId)).toBeCloseTo(usage / 2, 9);
      }),
    );
  });

  it('an hour of one vCPU just run counts about one unit-hour; a half-life ago, about half', () => {
    const recent = { projectId: 'p1', startMs: NOW - HOUR_MS, endMs: NOW, units: 1 };
    expect(decayedUnitHours(recent, NOW, HALF_LIFE)).toBeCloseTo(2 ** (-0.5 / (7 * 24)), 5);
    const old = { ...recent, startMs: NOW - HALF_LIFE - HOUR_MS / 2, endMs: NOW - HALF_LIFE + HOUR_MS / 2 };
    expect(decayedUnitHours(old, NOW, HALF_LIFE)).toBeCloseTo(0.5, 6);
    expect(decayedUnitHours({ ...recent, startMs: NOW + 1, endMs: null }, NOW, HALF_LIFE)).toBe(0);
  });

  it('a project that used exactly its share sits at 0.5', () => {
    const held = [
      { projectId: 'p1', startMs: NOW - 2 * HOUR_MS, endMs: NOW - HOUR_MS, units: 3 },
      { projectId: 'p2', startMs: NOW - 2 * HOUR_MS, endMs: NOW - HOUR_MS, units: 1 },
    ];
    const factors = fairShareFactors({ shares: new Map([['p1', 3]]), usage: decayedUsage(held, NOW, HALF_LIFE), projects: [] });
    expect(factors.map((entry) => entry.factor)).toEqual([0.5, 0.5]);
  });
});

describe('ranking requests', () => {
  const request = (requestId: string, projectId: string, hoursAgo: number) => ({
    requestId,
    projectId,
    submittedAt: new Date(NOW - hoursAgo * HOUR_MS).toISOString(),
  });

  it('by factor, then the oldest submission, then the id; the order never depends on the input order', () => {
    fc.assert(
      fc.property(
        workload,
        sharesOf,
        fc.array(fc.tuple(fc.constantFrom(...PROJECTS), fc.integer({ min: 0, max: 48 }))),
        (drawn, shares, asked) => {
          const factors = factorsAt(pieces(drawn), shares);
          const requests = asked.map(([projectId, hoursAgo], index) => request(`r${String(index).padStart(3, '0')}`, projectId, hoursAgo));
          const ranked = rankRequests(requests, factors);
          expect(rankRequests([...requests].reverse(), factors)).toEqual(ranked);
          for (let i = 1; i < ranked.length; i += 1) {
            const [a, b] = [ranked[i - 1], ranked[i]] as [(typeof ranked)[number], (typeof ranked)[number]];
            const [fa, fb] = [factorOf(factors, a.projectId), factorOf(factors, b.projectId)];
            expect(fa).toBeGreaterThanOrEqual(fb);
            if (fa === fb && a.projectId === b.projectId) expect(a.submittedAt <= b.submittedAt).toBe(true);
          }
        },
      ),
    );
  });

  it('a heavy user waits behind a light one that asked later', () => {
    const held = [{ projectId: 'heavy', startMs: NOW - 10 * HOUR_MS, endMs: NOW, units: 64 }];
    const factors = fairShareFactors({ shares: new Map(), usage: decayedUsage(held, NOW, HALF_LIFE), projects: ['light'] });
    const ranked = rankRequests([request('a', 'heavy', 5), request('b', 'light', 1)], factors);
    expect(ranked.map((entry) => entry.requestId)).toEqual(['b', 'a']);
  });
});
