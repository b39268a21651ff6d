import { describe, expect, it } from 'vitest';
import { foldEvents } from '../shared/decider.js';
import { type FairShareCommand, type FairShareEvent, fairShareDecider } from './fair-share.decide.js';

const NOW = '2030-01-01T00:00:00.000Z';
const set = (shares: number): FairShareCommand => ({ type: 'SetShares', data: { projectId: 'p1', shares, now: NOW } });
const reset: FairShareCommand = { type: 'ResetShares', data: { projectId: 'p1', now: NOW } };
const given = (...events: FairShareEvent[]) => foldEvents(fairShareDecider, events);
const shareSet = (shares: number): FairShareEvent => ({ type: 'FairShare.ShareSet', data: { projectId: 'p1', shares, setAt: NOW } });

describe("fair share: a project's shares", () => {
  it('setting shares records them, over the default or over earlier shares', () => {
    expect(fairShareDecider.decide(set(3), given())).toEqual([shareSet(3)]);
    expect(fairShareDecider.decide(set(0.5), given(shareSet(3)))).toEqual([shareSet(0.5)]);
    expect(given(shareSet(3), shareSet(0.5))).toEqual({ status: 'set', shares: 0.5 });
  });

  it.each([0, -1, 0.0001, 1_000_001, Number.NaN, Number.POSITIVE_INFINITY])('shares %s are refused', (shares) => {
    expect(() => fairShareDecider.decide(set(shares), given())).toThrow(
      expect.objectContaining({ code: 'INVALID_SHARES', kind: 'invalid' }),
    );
  });

  it('a reset puts the project back to the default; a project at the default has nothing to reset', () => {
    expect(fairShareDecider.decide(reset, given(shareSet(3)))).toEqual([
      { type: 'FairShare.ShareReset', data: { projectId: 'p1', resetAt: NOW } },
    ]);
    expect(given(shareSet(3), { type: 'FairShare.ShareReset', data: { projectId: 'p1', resetAt: NOW } })).toEqual({ status: 'default' });
    expect(() => fairShareDecider.decide(reset, given())).toThrow(
      expect.objectContaining({ code: 'FAIR_SHARE_NOT_SET', kind: 'not_found' }),
    );
  });
});
