import { NO_STREAM, WrongExpectedVersionError } from '@kurrent/kurrentdb-client';
import { IdempotencyConflictError, WrongExpectedRevisionError, type AppendRequest } from '../event-store.port.js';

/**
 * The client's WrongExpectedVersionError in the port's terms: the stream by its Leasehold id and the
 * expected revision as the caller gave it, so a conflict reads the same on every adapter.
 */
export const toPortAppendError = (
  error: unknown,
  requests: readonly AppendRequest[],
  toStreamName: (streamId: string) => string,
): unknown => {
  if (!(error instanceof WrongExpectedVersionError)) return error;
  const request = requests.find((candidate) => toStreamName(candidate.streamId) === error.streamName);
  if (request === undefined) return error;
  const actual = error.actualState === NO_STREAM ? -1 : Number(error.actualState);
  return new WrongExpectedRevisionError(request.streamId, request.expectedRevision, actual);
};

/** Where a refused request's own events would be if an earlier call had already written them. */
export const replayStart = (request: AppendRequest): number | null => {
  const expected = request.expectedRevision;
  if (expected === 'no_stream') return 0;
  if (typeof expected === 'number') return expected + 1;
  // 'any' and 'stream_exists' say nothing about where the events went: no replay is recognised for them
  return null;
};

export type ReplayVerdict = 'replay' | 'not_replay';

/**
 * After the server refused an append on a revision: was it a retry of an append that already
 * happened? Yes when every request's ids sit, in order, right after its expected revision; no when
 * none of them do; a mixture is neither, as on the other adapters.
 */
export const replayVerdict = (
  requests: readonly AppendRequest[],
  storedAfterExpected: readonly (readonly string[] | null)[],
): ReplayVerdict => {
  const asked = requests.flatMap((request, i) =>
    request.events.map((event, n) => ({ id: event.id, n, at: storedAfterExpected[i]?.indexOf(event.id) ?? -1 })),
  );
  const found = asked.filter((event) => event.at !== -1);
  if (asked.length > 0 && found.length === asked.length && found.every((event) => event.at === event.n)) return 'replay';
  const [first] = found;
  if (first !== undefined) throw new IdempotencyConflictError(first.id, 'some event ids of this append are already stored, others are not');
  return 'not_replay';
};
