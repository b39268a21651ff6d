import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evolveLeaseView } from '#plugins/lease-view.js';
import type { LeaseView } from './lease-view.js';
import { leaseHistory as history } from './testing/lease-histories.js';
import { evolveLeaseView as evolveBefore } from './testing/lease-view.reference.js';
import { reversePatch as reversePatchBefore } from './testing/version-patch.reference.js';
import { reversePatch } from './version-patch.js';

/**
 * The fold and the reverse patch were made cheaper (fewer copies, formats and arrays per event): a
 * stored document or patch must not change by one byte. Random lease histories (every event type,
 * every reservation type, odd instants) are folded by both versions and compared as JSON text.
 */

const text = (value: unknown): string => JSON.stringify(value) ?? 'undefined';

/** The document as a later batch reads it back: parsed from its stored text, sharing nothing. */
const reread = (doc: LeaseView): LeaseView => JSON.parse(JSON.stringify(doc)) as LeaseView;

describe('the cheaper fold and reverse patch give the very bytes the previous ones gave', () => {
  it('every document of a random history, and whether an event changed the document at all', () => {
    fc.assert(
      fc.property(history, ([first, rest]) => {
        let now: LeaseView | null = null;
        let before: LeaseView | null = null;
        for (const event of [first, ...rest]) {
          const next = evolveLeaseView(now, event);
          const expected = evolveBefore(before, event);
          expect(text(next)).toBe(text(expected));
          // the projection keeps no version for an event that gave the same document back
          expect(next === now).toBe(expected === before);
          [now, before] = [next, expected];
        }
      }),
      { numRuns: 3_000 },
    );
  });

  it('the reverse patch between consecutive documents, shared or read back from their text', () => {
    fc.assert(
      fc.property(history, ([first, rest]) => {
        let doc: LeaseView | null = null;
        for (const event of [first, ...rest]) {
          const next = evolveLeaseView(doc, event);
          if (doc !== null && next !== null) {
            expect(text(reversePatch(doc, next))).toBe(text(reversePatchBefore(doc, next)));
            expect(text(reversePatch(reread(doc), next))).toBe(text(reversePatchBefore(reread(doc), next)));
          }
          doc = next;
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('the reverse patch of any two values (other shapes, undefined, nested arrays)', () => {
    const value = fc.object({
      maxDepth: 4,
      withNullPrototype: false,
      values: [fc.constantFrom(undefined, null, 1, 'a', true), fc.string()],
    });
    const pair = fc.oneof(
      fc.tuple(value, value),
      // mostly alike: a value against itself read back, with one top field replaced
      fc
        .tuple(value, fc.string(), fc.jsonValue())
        .map(([a, key, b]) => [a, { ...(JSON.parse(JSON.stringify(a)) as object), [key]: b }] as const),
    );
    fc.assert(
      fc.property(pair, ([a, b]) => {
        expect(reversePatch(a, b)).toStrictEqual(reversePatchBefore(a, b));
        expect(reversePatch(b, a)).toStrictEqual(reversePatchBefore(b, a));
      }),
      { numRuns: 3_000 },
    );
  });
});
