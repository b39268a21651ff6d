import { IdempotencyConflictError, type AppendRequest, type ExpectedRevision } from './event-store.port.js';

/** The rules every adapter applies to an append, whatever its database. */

export const matchesExpected = (expected: ExpectedRevision, actual: number): boolean => {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return actual === -1;
    case 'stream_exists':
      return actual >= 0;
    default:
      return actual === expected;
  }
};

function assertValidExpected(request: AppendRequest): void {
  const expected = request.expectedRevision;
  if (typeof expected === 'number' && (!Number.isInteger(expected) || expected < -1)) {
    throw new RangeError(`Invalid expected revision ${expected} for stream ${request.streamId}`);
  }
}

/** Rejects requests that can never be a valid append, before touching the database. */
export function validateRequests(requests: readonly AppendRequest[]): void {
  const streams = new Set<string>();
  const ids = new Set<string>();
  for (const request of requests) {
    if (streams.has(request.streamId)) throw new Error(`Stream ${request.streamId} appears twice in one append`);
    streams.add(request.streamId);
    assertValidExpected(request);
    for (const event of request.events) {
      if (ids.has(event.id)) throw new IdempotencyConflictError(event.id, 'the id appears twice in one append');
      ids.add(event.id);
    }
  }
}

export interface RequestedEvent {
  readonly id: string;
  readonly streamId: string;
}

export const requestedEvents = (requests: readonly AppendRequest[]): RequestedEvent[] =>
  requests.flatMap((request) => request.events.map((event) => ({ id: event.id, streamId: request.streamId })));
