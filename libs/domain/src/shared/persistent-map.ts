/**
 * An immutable map from strings that `set` and `delete` copy in O(log32 n), sharing the rest with the
 * map they came from (a hash array mapped trie). A decider whose state holds one entry per host can
 * then evolve without copying every entry on each event: folding n events costs O(n log32 n), not O(n²),
 * and every earlier state still reads as it did. Iterates in hash order, not in insertion order.
 */
type Entry<V> = readonly [string, V];

interface Bucket<V> {
  readonly hash: number;
  /** Keys with this whole hash (one, unless two keys collide). */
  readonly entries: readonly Entry<V>[];
}

interface Branch<V> {
  /** Bit i set: a child for the 5 hash bits i at this depth; children in bit order. */
  readonly bitmap: number;
  readonly children: readonly Node<V>[];
}

type Node<V> = Bucket<V> | Branch<V>;

const BITS = 5;
const MASK = (1 << BITS) - 1;

const isBucket = <V>(node: Node<V>): node is Bucket<V> => 'entries' in node;

/** FNV-1a over the UTF-16 code units (exported for tests that need two keys of one hash). */
export const persistentMapHash = (key: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 0;
};

const popcount = (bits: number): number => {
  let n = bits - ((bits >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return Math.imul((n + (n >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
};

const slotOf = (hash: number, shift: number): number => 1 << ((hash >>> shift) & MASK);

const indexIn = (bitmap: number, bit: number): number => popcount(bitmap & (bit - 1));

const find = <V>(node: Node<V> | undefined, key: string, hash: number): Entry<V> | undefined => {
  for (let shift = 0; node !== undefined; shift += BITS) {
    if (isBucket(node)) return node.hash === hash ? node.entries.find(([k]) => k === key) : undefined;
    const bit = slotOf(hash, shift);
    node = (node.bitmap & bit) === 0 ? undefined : node.children[indexIn(node.bitmap, bit)];
  }
  return undefined;
};

/** A branch (or branches, while their hash bits agree) holding two buckets of different hashes. */
const split = <V>(a: Bucket<V>, b: Bucket<V>, shift: number): Branch<V> => {
  const bitA = slotOf(a.hash, shift);
  const bitB = slotOf(b.hash, shift);
  if (bitA === bitB) return { bitmap: bitA, children: [split(a, b, shift + BITS)] };
  // by bit index: the slot of bit 31 is a negative number
  const aFirst = ((a.hash >>> shift) & MASK) < ((b.hash >>> shift) & MASK);
  return { bitmap: bitA | bitB, children: aFirst ? [a, b] : [b, a] };
};

const withEntry = <V>(entries: readonly Entry<V>[], entry: Entry<V>): Entry<V>[] => [...entries.filter(([k]) => k !== entry[0]), entry];

const insert = <V>(node: Node<V> | undefined, entry: Entry<V>, hash: number, shift: number): Node<V> => {
  if (node === undefined) return { hash, entries: [entry] };
  if (isBucket(node))
    return node.hash === hash ? { hash, entries: withEntry(node.entries, entry) } : split(node, { hash, entries: [entry] }, shift);
  const bit = slotOf(hash, shift);
  const at = indexIn(node.bitmap, bit);
  const children = [...node.children];
  if ((node.bitmap & bit) === 0) children.splice(at, 0, { hash, entries: [entry] });
  else children[at] = insert(children[at], entry, hash, shift + BITS);
  return { bitmap: node.bitmap | bit, children };
};

/** The node without `key` (undefined once empty); the same node when `key` is absent. */
const remove = <V>(node: Node<V>, key: string, hash: number, shift: number): Node<V> | undefined => {
  if (isBucket(node)) {
    if (node.hash !== hash) return node;
    const entries = node.entries.filter(([k]) => k !== key);
    if (entries.length === node.entries.length) return node;
    return entries.length === 0 ? undefined : { hash, entries };
  }
  const bit = slotOf(hash, shift);
  if ((node.bitmap & bit) === 0) return node;
  const at = indexIn(node.bitmap, bit);
  const child = node.children[at] as Node<V>;
  const next = remove(child, key, hash, shift + BITS);
  if (next === child) return node;
  const children = [...node.children];
  if (next !== undefined) {
    children[at] = next;
    return { bitmap: node.bitmap, children };
  }
  children.splice(at, 1);
  return children.length === 0 ? undefined : { bitmap: node.bitmap & ~bit, children };
};

/** Fresh pairs, as a Map's are: a caller that changes one cannot change the map. */
function* entriesOf<V>(node: Node<V> | undefined): Generator<[string, V], undefined, unknown> {
  if (node === undefined) return undefined;
  if (isBucket(node)) {
    for (const [key, value] of node.entries) yield [key, value];
    return undefined;
  }
  for (const child of node.children) yield* entriesOf(child);
  return undefined;
}

export class PersistentMap<V> implements ReadonlyMap<string, V> {
  private static readonly EMPTY = new PersistentMap<never>(undefined, 0);

  private constructor(
    private readonly root: Node<V> | undefined,
    readonly size: number,
  ) {}

  static empty<V>(): PersistentMap<V> {
    return PersistentMap.EMPTY;
  }

  /** `entries` as a persistent map; the map itself when it already is one (O(1), nothing copied). */
  static from<V>(entries: PersistentMap<V> | Iterable<Entry<V>>): PersistentMap<V> {
    if (entries instanceof PersistentMap) return entries;
    let map = PersistentMap.empty<V>();
    for (const [key, value] of entries) map = map.set(key, value);
    return map;
  }

  get(key: string): V | undefined {
    return find(this.root, key, persistentMapHash(key))?.[1];
  }

  has(key: string): boolean {
    return find(this.root, key, persistentMapHash(key)) !== undefined;
  }

  set(key: string, value: V): PersistentMap<V> {
    const hash = persistentMapHash(key);
    const had = find(this.root, key, hash);
    if (had !== undefined && had[1] === value) return this;
    return new PersistentMap(insert(this.root, [key, value], hash, 0), had === undefined ? this.size + 1 : this.size);
  }

  delete(key: string): PersistentMap<V> {
    if (this.root === undefined) return this;
    const root = remove(this.root, key, persistentMapHash(key), 0);
    return root === this.root ? this : new PersistentMap(root, this.size - 1);
  }

  entries(): Generator<[string, V], undefined, unknown> {
    return entriesOf(this.root);
  }

  *keys(): Generator<string, undefined, unknown> {
    for (const [key] of this.entries()) yield key;
    return undefined;
  }

  *values(): Generator<V, undefined, unknown> {
    for (const [, value] of this.entries()) yield value;
    return undefined;
  }

  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void): void {
    for (const [key, value] of this.entries()) callback(value, key, this);
  }

  [Symbol.iterator](): Generator<[string, V], undefined, unknown> {
    return this.entries();
  }
}
