import { describe, expect, it } from 'vitest';
import type { LeaseEvent } from '#domain/index.js';
import {
  LEASE_ID,
  at,
  created,
  endRequested,
  ended,
  flavorInstanceReservation,
  floatingIpReservation,
  reservation,
  startRequested,
  started,
  virtualInstanceReservation,
} from '#domain/lease/testing/lease.fixtures.js';
import { evolveLeaseView } from '#plugins/lease-view.js';
import type { LeaseView } from './lease-view.js';
import { applyPatch, reversePatch } from './version-patch.js';

/** Every document a lease goes through, as the projection folds them (sharing what an event leaves alone). */
const lifeOf = (events: readonly LeaseEvent[]): LeaseView[] => {
  const docs: LeaseView[] = [];
  let doc: LeaseView | null = null;
  for (const event of events) {
    doc = evolveLeaseView(doc, event);
    if (doc !== null) docs.push(doc);
  }
  return docs;
};

const reservations = [
  reservation('res-1'),
  virtualInstanceReservation('res-2'),
  flavorInstanceReservation('res-3'),
  floatingIpReservation('res-4'),
];
const life: LeaseEvent[] = [
  created({ reservations }),
  { type: 'Lease.Renamed', data: { leaseId: LEASE_ID, name: 'renamed', renamedAt: at(9) } },
  startRequested(),
  started(),
  {
    type: 'Lease.Rescheduled',
    data: { leaseId: LEASE_ID, startDate: at(10), endDate: at(20), beforeEndDate: at(19), rescheduledAt: at(11) },
  },
  endRequested(),
  ended(),
];

describe('past versions kept as reverse patches', () => {
  it('every version of a lease comes back from the next one byte for byte (field order included), through JSON as stored', () => {
    const docs = lifeOf(life);
    expect(docs.length).toBe(life.length);
    for (let i = 0; i + 1 < docs.length; i++) {
      const [previous, next] = [docs[i] as LeaseView, docs[i + 1] as LeaseView];
      const patch = reversePatch(previous, next);
      expect(patch, `version ${i}`).not.toBeNull();
      const stored = JSON.parse(JSON.stringify(patch)) as typeof patch & object;
      const fromStoredNext = JSON.parse(JSON.stringify(next)) as LeaseView;
      expect(JSON.stringify(applyPatch(fromStoredNext, stored)), `version ${i}`).toBe(JSON.stringify(previous));
      // a patch is what changed, far smaller than the document
      expect(JSON.stringify(patch).length, `version ${i}`).toBeLessThan(JSON.stringify(previous).length / 3);
    }
  });

  it('a chain of patches rebuilds the oldest version from the newest', () => {
    const docs = lifeOf(life);
    const patches = docs.slice(0, -1).map((doc, i) => reversePatch(doc, docs[i + 1] as LeaseView) ?? []);
    const newest = JSON.parse(JSON.stringify(docs.at(-1))) as LeaseView;
    expect(JSON.stringify(patches.reduceRight<LeaseView>((doc, patch) => applyPatch(doc, patch), newest))).toBe(JSON.stringify(docs[0]));
  });

  it('applying a patch leaves the next version as it was', () => {
    const [previous, next] = lifeOf([created({ reservations }), startRequested(), started()]).slice(1) as [LeaseView, LeaseView];
    const before = JSON.stringify(next);
    const patch = reversePatch(previous, next);
    expect(patch).not.toBeNull();
    applyPatch(next, patch ?? []);
    expect(JSON.stringify(next)).toBe(before);
  });

  it('documents of another shape are kept whole: keys added, removed or reordered, arrays of another length, undefined values', () => {
    expect(reversePatch({ a: 1, b: 2 }, { b: 2, a: 1 })).toBeNull();
    expect(reversePatch({ a: 1 }, { a: 1, b: 2 })).toBeNull();
    expect(reversePatch({ a: 1, b: undefined }, { a: 1, b: 2 })).toBeNull();
    // deeper down, a change of shape is carried as the whole older value
    expect(reversePatch({ list: [1, 2] }, { list: [1, 2, 3] })).toEqual([['list', [1, 2]]]);
    expect(reversePatch({ o: { x: 1, y: 2 } }, { o: { y: 2, x: 1 } })).toEqual([['o', { x: 1, y: 2 }]]);
    expect(applyPatch({ o: { y: 2, x: 1 } }, [['o', { x: 1, y: 2 }]])).toEqual({ o: { x: 1, y: 2 } });
  });

  it('equal documents need no patch; equal values under other references cost only their own fields', () => {
    const doc = { a: 1, list: [{ s: 'x', t: 1 }] };
    expect(reversePatch(doc, doc)).toEqual([]);
    expect(reversePatch(doc, { a: 2, list: [{ s: 'y', t: 1 }] })).toEqual([
      ['a', 1],
      ['list', 0, 's', 'x'],
    ]);
  });
});
