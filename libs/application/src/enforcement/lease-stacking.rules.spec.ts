import { describe, expect, it } from 'vitest';
import { type LeaseStackingPolicy, type StackedLease, stackingExcess, stackingRefusal } from './lease-stacking.rules.js';

const HOUR = 3_600_000;
const GPU = 'hosts with node_type=gpu';
const CPU = 'hosts with node_type=cpu';
const lease = (from: number, to: number, ...scopes: string[]): StackedLease => ({
  start: from * HOUR,
  end: to * HOUR,
  scopes: new Set(scopes),
});
/** A new lease judged at hour `now` against `others`, at most two at once. */
const judged = (after: StackedLease, others: StackedLease[], now = 0) => stackingExcess(2, now * HOUR, null, after, others);

describe('the lease stacking rule', () => {
  it('Given two leases overlapping the new one on the same scope, When a third is judged with a limit of 2, Then it is the excess, from when the three overlap', () => {
    expect(judged(lease(10, 18, GPU), [lease(8, 12, GPU), lease(11, 20, GPU)])).toEqual({ scope: GPU, count: 3, at: 11 * HOUR });
  });

  it('Given two leases that end as the new one starts or start as it ends, When it is judged, Then touching windows do not overlap', () => {
    expect(judged(lease(10, 18, GPU), [lease(6, 10, GPU), lease(8, 10, GPU), lease(18, 20, GPU), lease(18, 22, GPU)])).toBeNull();
  });

  it('Given two leases in a row each overlapping the new one but never each other, When it is judged, Then the project holds two at once: no excess', () => {
    expect(judged(lease(10, 18, GPU), [lease(8, 12, GPU), lease(12, 20, GPU)])).toBeNull();
  });

  it('Given two leases on another scope, When a lease is judged, Then they do not count', () => {
    expect(judged(lease(10, 18, GPU), [lease(8, 20, CPU), lease(8, 20, CPU)])).toBeNull();
  });

  it('Given a lease on two scopes, When it is judged, Then each scope counts its own leases and the first in excess is named', () => {
    const others = [lease(8, 20, CPU), lease(8, 20, CPU, GPU), lease(9, 20, GPU)];
    expect(judged(lease(10, 18, GPU, CPU), others)).toEqual({ scope: CPU, count: 3, at: 10 * HOUR });
  });

  it('Given two leases overlapping in the past only, When an active lease is judged from now on, Then what ended before now does not count', () => {
    expect(judged(lease(6, 18, GPU), [lease(6, 9, GPU), lease(7, 10, GPU)], 10)).toBeNull();
    expect(judged(lease(6, 18, GPU), [lease(6, 11, GPU), lease(7, 12, GPU)], 10)).toEqual({ scope: GPU, count: 3, at: 10 * HOUR });
  });

  it('Given a lease that has ended, When it is judged, Then it stacks on nothing', () => {
    expect(judged(lease(6, 9, GPU), [lease(6, 9, GPU), lease(6, 9, GPU)], 10)).toBeNull();
  });

  it('Given three leases already stacked (a limit lowered since), When one of them is shortened or renamed, Then it adds to no stack and passes', () => {
    const others = [lease(10, 18, GPU), lease(10, 18, GPU)];
    expect(stackingExcess(2, 0, lease(10, 18, GPU), lease(10, 14, GPU), others)).toBeNull();
    expect(stackingExcess(2, 0, lease(10, 18, GPU), lease(10, 18, GPU), others)).toBeNull();
  });

  it('Given a lease beside two others, When an update moves it into their overlap or onto their scope, Then it is the excess', () => {
    const others = [lease(10, 14, GPU), lease(12, 18, GPU)];
    expect(stackingExcess(2, 0, lease(15, 20, GPU), lease(13, 20, GPU), others)).toEqual({ scope: GPU, count: 3, at: 13 * HOUR });
    expect(stackingExcess(2, 0, lease(12, 14, CPU), lease(12, 14, GPU), others)).toEqual({ scope: GPU, count: 3, at: 12 * HOUR });
  });

  it('Given no other lease, When a lease outside every scope is judged, Then there is nothing to count', () => {
    expect(judged(lease(10, 18), [lease(10, 18), lease(10, 18)])).toBeNull();
  });

  it('names the project, the scope, the limit, the count and when in the 403', () => {
    const policy: LeaseStackingPolicy = { max: 2, scope: { kind: 'property', name: 'node_type' }, exemptProjectIds: new Set() };
    expect(stackingRefusal(policy, 'project-1', { scope: GPU, count: 3, at: Date.parse('2030-01-01T11:00:00Z') })).toBe(
      'Lease stacking limit exceeded for project project-1: overlapping leases on hosts with node_type=gpu limit 2, this lease would make it 3 from 2030-01-01 11:00',
    );
  });
});
