import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PersistentMap, persistentMapHash } from './persistent-map.js';

type Op = { readonly kind: 'set'; readonly key: string; readonly value: number } | { readonly kind: 'delete'; readonly key: string };

const sorted = <V>(entries: Iterable<readonly [string, V]>): [string, V][] =>
  [...entries].map(([k, v]): [string, V] => [k, v]).sort(([a], [b]) => a.localeCompare(b));

/** Two keys "k<i>" of one hash, found by search (FNV-1a is fixed, so the pair is too). */
const collidingKeys = (): readonly [string, string] => {
  const seen = new Map<number, string>();
  for (let i = 0; ; i++) {
    const key = `k${i}`;
    const hash = persistentMapHash(key);
    const other = seen.get(hash);
    if (other !== undefined) return [other, key];
    seen.set(hash, key);
  }
};

describe('PersistentMap', () => {
  it('answers as a Map given the same sets and deletes, and every earlier version stays as it was', () => {
    // few distinct keys, so that sets overwrite and deletes hit
    const key = fc.integer({ min: 0, max: 300 }).map((i) => `host-${i}`);
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key, value: fc.integer() }),
      fc.record({ kind: fc.constant('delete' as const), key }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const model = new Map<string, number>();
        let map = PersistentMap.empty<number>();
        const versions: [PersistentMap<number>, [string, number][]][] = [];
        for (const o of ops) {
          if (o.kind === 'set') {
            model.set(o.key, o.value);
            map = map.set(o.key, o.value);
          } else {
            model.delete(o.key);
            map = map.delete(o.key);
          }
          versions.push([map, sorted(model)]);
        }
        expect(map.size).toBe(model.size);
        for (let i = 0; i <= 300; i++) expect(map.get(`host-${i}`)).toBe(model.get(`host-${i}`));
        for (const [version, expected] of versions) expect(sorted(version)).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });

  it('keeps two keys of one hash apart, and deletes either alone', () => {
    const [a, b] = collidingKeys();
    expect(persistentMapHash(a)).toBe(persistentMapHash(b));
    const both = PersistentMap.empty<string>().set(a, 'A').set('other', 'O').set(b, 'B');
    expect([both.get(a), both.get(b), both.size]).toEqual(['A', 'B', 3]);
    expect(sorted(both.delete(a))).toEqual(
      sorted([
        [b, 'B'],
        ['other', 'O'],
      ]),
    );
    expect(both.delete(b).get(a)).toBe('A');
    expect(both.delete(b).has(b)).toBe(false);
    expect(both.set(a, 'A2').get(b)).toBe('B');
  });

  it('returns itself for a delete of a missing key or a set of the same value', () => {
    const map = PersistentMap.empty<string>().set('a', '1');
    expect(map.delete('b')).toBe(map);
    expect(map.set('a', '1')).toBe(map);
    expect(PersistentMap.from(map)).toBe(map);
  });

  it('hands out fresh pairs: changing one leaves the map as it was', () => {
    const map = PersistentMap.from(new Map([['a', '1']]));
    const [pair] = [...map];
    (pair as [string, string])[1] = 'changed';
    expect(map.get('a')).toBe('1');
    expect([...map.keys()]).toEqual(['a']);
    expect([...map.values()]).toEqual(['1']);
  });
});
