/**
 * Test-only: the reverse patch as it was before the projections' fold was made cheaper (commit
 * d7cda6f), kept word for word as the oracle the faster one must match. Not built, not exported.
 */
export type PatchOp = readonly [string | number, ...unknown[]];
export type VersionPatch = readonly PatchOp[];

/** How deep the diff descends: the lease document's reservations and events are at depth 2, their fields at 3. */
const MAX_DEPTH = 3;

type Plain = Record<string, unknown>;

const isPlainObject = (value: unknown): value is Plain => typeof value === 'object' && value !== null && !Array.isArray(value);

const sameKeys = (a: Plain, b: Plain): boolean => {
  const left = Object.keys(a);
  const right = Object.keys(b);
  if (left.length !== right.length) return false;
  for (let i = 0; i < left.length; i++) if (left[i] !== right[i]) return false;
  return true;
};

/** Appends to `ops` what turns `next` into `previous`; false when a value cannot be carried by JSON exactly (undefined). */
const diffInto = (ops: unknown[][], path: (string | number)[], previous: unknown, next: unknown, depth: number): boolean => {
  // the projections share what an event did not touch: the same reference is the same value
  if (previous === next) return true;
  if (depth < MAX_DEPTH && Array.isArray(previous) && Array.isArray(next) && previous.length === next.length) {
    for (let i = 0; i < previous.length; i++) {
      path.push(i);
      const ok = diffInto(ops, path, previous[i], next[i], depth + 1);
      path.pop();
      if (!ok) return false;
    }
    return true;
  }
  if (depth < MAX_DEPTH && isPlainObject(previous) && isPlainObject(next) && sameKeys(previous, next)) {
    for (const key of Object.keys(previous)) {
      path.push(key);
      const ok = diffInto(ops, path, previous[key], next[key], depth + 1);
      path.pop();
      if (!ok) return false;
    }
    return true;
  }
  if (previous === undefined || path.length === 0) return false;
  ops.push([...path, previous]);
  return true;
};

/**
 * The patch that turns `next` back into `previous`, or null when they differ in shape (keys,
 * their order, an array's length) at the top or hold a value JSON cannot carry: store `previous` whole then.
 */
export const reversePatch = <Doc extends object>(previous: Doc, next: Doc): VersionPatch | null => {
  if (!isPlainObject(previous) || !isPlainObject(next) || !sameKeys(previous, next)) return null;
  const ops: unknown[][] = [];
  return diffInto(ops, [], previous, next, 0) ? (ops as unknown as VersionPatch) : null;
};
