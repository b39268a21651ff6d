import { NO_STREAM, StreamDeletedError, WrongExpectedVersionError } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { IdempotencyConflictError, WrongExpectedRevisionError, type AppendRequest, type EventData } from '../event-store.port.js';
import { replayStart, replayVerdict, toPortAppendError } from './kurrentdb-errors.js';
import { streamPrefix, toStreamName } from './kurrentdb-events.js';

const PREFIX = streamPrefix('leasehold', 'events');
const named = (streamId: string): string => toStreamName(PREFIX, streamId);
const anEvent = (id: string): EventData => ({
  id,
  type: 'Noted',
  data: {},
  metadata: { correlationId: 'c', causationId: 'c', actor: null },
});
const request = (streamId: string, expectedRevision: AppendRequest['expectedRevision'], ids: string[]): AppendRequest => ({
  streamId,
  expectedRevision,
  events: ids.map(anEvent),
});

describe("the client's append errors in the port's terms", () => {
  const requests = [request('lease-1', 'no_stream', ['a']), request('host-\ud800', 4, ['b'])];

  it('a revision conflict from multiStreamAppend names the stream by its Leasehold id and the expected revision as asked', () => {
    const conflict = WrongExpectedVersionError.fromRevisionConflict({
      stream: named('host-\ud800'),
      expectedRevision: '4',
      actualRevision: '6',
    });
    const mapped = toPortAppendError(conflict, requests, named);
    expect(mapped).toBeInstanceOf(WrongExpectedRevisionError);
    expect(mapped).toMatchObject({ streamId: 'host-\ud800', expected: 4, actual: 6 });
  });

  it('a stream that does not exist is revision -1', () => {
    const conflict = new WrongExpectedVersionError(undefined, { streamName: named('lease-1'), expected: 0n, current: NO_STREAM });
    expect(toPortAppendError(conflict, [request('lease-1', 0, ['a'])], named)).toMatchObject({
      streamId: 'lease-1',
      expected: 0,
      actual: -1,
    });
  });

  it('anything else, or a conflict on a stream this append did not name, is passed on as the client raised it', () => {
    const deleted = StreamDeletedError.fromStreamName(named('lease-1'));
    expect(toPortAppendError(deleted, requests, named)).toBe(deleted);
    const elsewhere = new WrongExpectedVersionError(undefined, { streamName: named('lease-2'), expected: 0n, current: 1n });
    expect(toPortAppendError(elsewhere, requests, named)).toBe(elsewhere);
  });
});

describe('recognising a retried append after a refusal', () => {
  it('looks right after the expected revision, and nowhere for any or stream_exists', () => {
    expect(replayStart(request('s', 'no_stream', ['a']))).toBe(0);
    expect(replayStart(request('s', -1, ['a']))).toBe(0);
    expect(replayStart(request('s', 7, ['a']))).toBe(8);
    expect(replayStart(request('s', 'any', ['a']))).toBeNull();
    expect(replayStart(request('s', 'stream_exists', ['a']))).toBeNull();
  });

  it('is a replay when every request finds its ids there in order', () => {
    const asked = [request('a', 'no_stream', ['1', '2']), request('b', 3, ['3']), request('c', 0, [])];
    expect(replayVerdict(asked, [['1', '2'], ['3'], null])).toBe('replay');
  });

  it('is no replay when none of the ids are there, so the revision conflict stands', () => {
    const asked = [request('a', 'no_stream', ['1']), request('b', 'any', ['2'])];
    expect(replayVerdict(asked, [['x'], null])).toBe('not_replay');
    expect(replayVerdict([request('a', 0, [])], [null])).toBe('not_replay');
  });

  it('is an idempotency conflict when only some ids are there, or out of order', () => {
    expect(() => replayVerdict([request('a', 0, ['1', '2'])], [['1', 'other']])).toThrow(IdempotencyConflictError);
    expect(() => replayVerdict([request('a', 0, ['1']), request('b', 0, ['2'])], [['1'], ['x']])).toThrow(IdempotencyConflictError);
    expect(() => replayVerdict([request('a', 0, ['1', '2'])], [['2', '1']])).toThrow(IdempotencyConflictError);
  });
});
