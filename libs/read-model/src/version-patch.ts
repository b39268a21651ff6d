/**
 * A past version of a document stored as what differs from the next one (a reverse patch): most
 * changes of a lease touch its status, its updated_at and a field or two of a reservation or an
 * event, so a patch is a few dozen bytes where the whole document is over a kilobyte.
 *
 * A patch is a list of `[...path, value]`: set `value` at `path` (object keys and array indexes) of
 * the next version to get this one. Only documents of the same shape are diffed (same keys in the
 * same order, arrays of the same length): anything else is stored whole, so that applying a patch
 * never adds, removes or reorders a field (Blazar's field order is part of the answer).
 */
export type PatchOp = readonly [string | number, ...unknown[]];
export type VersionPatch = readonly PatchOp[];

/** How deep the diff descends: the lease document's reservations and events are at depth 2, their fields at 3. */
const MAX_DEPTH = 3;

type Plain = Record<string, unknown>;

const isPlainObject = (value: unknown): value is Plain => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The keys of `a` when `b` has the very same keys in the same order; null otherwise. */
const sameKeys = (a: Plain, b: Plain): string[] | null => {
  const left = Object.keys(a);
  const right = Object.keys(b);
  if (left.length !== right.length) return null;
  for (let i = 0; i < left.length; i++) if (left[i] !== right[i]) return null;
  return left;
};

/** Appends to `ops` what turns `next` into `previous`; false when a value cannot be carried by JSON exactly (undefined). */
const diffInto = (ops: unknown[][], path: (string | number)[], previous: unknown, next: unknown, depth: number): boolean => {
  // the projections share what an event did not touch: the same reference is the same value
  if (previous === next) return true;
  if (depth < MAX_DEPTH && typeof previous === 'object' && previous !== null && typeof next === 'object' && next !== null) {
    if (Array.isArray(previous)) {
      if (Array.isArray(next) && previous.length === next.length) return diffArrays(ops, path, previous, next, depth);
    } else if (!Array.isArray(next)) {
      const keys = sameKeys(previous as Plain, next as Plain);
      if (keys !== null) return diffObjects(ops, path, keys, previous as Plain, next as Plain, depth);
    }
  }
  if (previous === undefined || path.length === 0) return false;
  ops.push([...path, previous]);
  return true;
};

const diffArrays = (ops: unknown[][], path: (string | number)[], previous: unknown[], next: unknown[], depth: number): boolean => {
  for (let i = 0; i < previous.length; i++) {
    if (previous[i] === next[i]) continue;
    path.push(i);
    const ok = diffInto(ops, path, previous[i], next[i], depth + 1);
    path.pop();
    if (!ok) return false;
  }
  return true;
};

/**
 * `keys`: those of both objects, in their (common) order, which is also Object.values' order: the
 * values are read in two sweeps instead of a lookup by name per key (slow on documents of many shapes).
 */
const diffObjects = (
  ops: unknown[][],
  path: (string | number)[],
  keys: readonly string[],
  previous: Plain,
  next: Plain,
  depth: number,
): boolean => {
  const before = Object.values(previous);
  const after = Object.values(next);
  for (let i = 0; i < keys.length; i++) {
    if (before[i] === after[i]) continue;
    path.push(keys[i] as string);
    const ok = diffInto(ops, path, before[i], after[i], depth + 1);
    path.pop();
    if (!ok) return false;
  }
  return true;
};

/**
 * The patch that turns `next` back into `previous`, or null when they differ in shape (keys,
 * their order, an array's length) at the top or hold a value JSON cannot carry: store `previous` whole then.
 */
export const reversePatch = <Doc extends object>(previous: Doc, next: Doc): VersionPatch | null => {
  if (!isPlainObject(previous) || !isPlainObject(next)) return null;
  const keys = sameKeys(previous, next);
  if (keys === null) return null;
  const ops: unknown[][] = [];
  return diffObjects(ops, [], keys, previous, next, 0) ? (ops as unknown as VersionPatch) : null;
};

const copyOf = (value: unknown): unknown =>
  Array.isArray(value) ? [...(value as unknown[])] : isPlainObject(value) ? { ...value } : value;

/** `next` with the patch applied: a new document (what `next` shares is copied along each path, never changed). */
export const applyPatch = <Doc extends object>(next: Doc, patch: VersionPatch): Doc => {
  const root = copyOf(next) as Record<string | number, unknown>;
  for (const op of patch) {
    let node = root;
    // every node along the path is copied before it is changed; one copied by an earlier op is copied again (cheap, small)
    for (let i = 0; i < op.length - 2; i++) {
      const key = op[i] as string | number;
      const child = copyOf(node[key]) as Record<string | number, unknown>;
      node[key] = child;
      node = child;
    }
    node[op[op.length - 2] as string | number] = op[op.length - 1];
  }
  return root as Doc;
};
