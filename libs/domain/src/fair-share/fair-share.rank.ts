import type { FairShareFactor } from './fair-share.factor.js';

/** What the ranking reads of a queued request (a lease request's own fields). */
export interface RankedRequest {
  readonly requestId: string;
  readonly projectId: string;
  /** ISO-8601 UTC. */
  readonly submittedAt: string;
}

/**
 * Requests in the order the queue serves them: the project's fair-share factor, highest first (compared by U/S, the same
 * order without the factor's underflow), then the oldest submission, then the request id, so that equal standing never
 * depends on the input's order. A project missing from `factors` ranks as one that used nothing.
 */
export const rankRequests = <R extends RankedRequest>(requests: readonly R[], factors: readonly FairShareFactor[]): R[] => {
  const level = new Map(factors.map((entry) => [entry.projectId, entry.usageOverShare]));
  const levelOf = (request: R): number => level.get(request.projectId) ?? 0;
  return [...requests].sort(
    (a, b) =>
      levelOf(a) - levelOf(b) ||
      Date.parse(a.submittedAt) - Date.parse(b.submittedAt) ||
      (a.requestId < b.requestId ? -1 : a.requestId > b.requestId ? 1 : 0),
  );
};
