import type { Position } from '@kurrent/kurrentdb-client';

export class KurrentDbPositionError extends Error {
  override readonly name = 'KurrentDbPositionError';
}

/**
 * The port's position is the event's commit position in the server's log, a byte offset. It keeps
 * the order of $all and is lossless for checkpoints because, without explicit transactions (gone from
 * the gRPC API), every event's prepare position equals its commit position, so the pair is rebuilt
 * from the one number. An event where they differ, or past 2^53, is refused rather than mapped to a
 * number that would read back as another place in the log. The log starts with the server's own
 * records, so no event of ours sits at 0, which stays "before everything".
 */
export const toPortPosition = (position: Position): number => {
  if (position.commit !== position.prepare) {
    throw new KurrentDbPositionError(
      `event at commit ${position.commit} has prepare ${position.prepare}: written in an explicit transaction, which Leasehold cannot number`,
    );
  }
  if (position.commit <= 0n || position.commit > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new KurrentDbPositionError(`commit position ${position.commit} is outside 1..2^53-1`);
  }
  return Number(position.commit);
};

/** The server position a checkpoint names (a position this store handed out). */
export const toServerPosition = (position: number): Position => {
  if (!Number.isSafeInteger(position) || position < 1) throw new RangeError(`Invalid KurrentDB position ${position}`);
  return { commit: BigInt(position), prepare: BigInt(position) };
};

/** multiStreamAppend reports one position for the whole append: the commit position of its last record. */
export const appendedPosition = (position: bigint): number => toPortPosition({ commit: position, prepare: position });
