import type { Position } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { KurrentDbPositionError, appendedPosition, toPortPosition, toServerPosition } from './kurrentdb-positions.js';

const at = (commit: bigint, prepare = commit): Position => ({ commit, prepare });

describe('KurrentDB positions as the port numbers them', () => {
  it('are the commit position, and give back the same server position for a checkpoint', () => {
    for (const position of [at(1n), at(4_096n), at(268_435_456n), at(BigInt(Number.MAX_SAFE_INTEGER))]) {
      expect(toServerPosition(toPortPosition(position))).toEqual(position);
    }
  });

  it('keep the order of $all', () => {
    const log = [at(712n), at(1_024n), at(1_025n), at(9_000_000_000n)];
    const numbers = log.map(toPortPosition);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(log.length);
  });

  it.each([
    [at(2_048n, 1_024n), 'written in an explicit transaction'],
    [at(0n), 'outside 1..2^53-1'],
    [at(BigInt(Number.MAX_SAFE_INTEGER) + 1n), 'outside 1..2^53-1'],
  ])('refuse %o rather than name another place in the log', (position, reason) => {
    expect(() => toPortPosition(position)).toThrow(KurrentDbPositionError);
    expect(() => toPortPosition(position)).toThrow(reason);
  });

  it('read an append result as the commit position of its last record', () => {
    expect(appendedPosition(123_456n)).toBe(123_456);
  });

  it.each([0, -5, 1.5, Number.MAX_SAFE_INTEGER + 1])('cannot start a read at %s (0 means the start, handled apart)', (position) => {
    expect(() => toServerPosition(position)).toThrow(RangeError);
  });
});
