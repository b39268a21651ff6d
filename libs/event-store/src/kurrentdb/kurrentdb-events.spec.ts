import { ANY, NO_STREAM, STREAM_EXISTS, type RecordedEvent as ServerEvent } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { streamCategory, type EventData } from '../event-store.port.js';
import { HOSTILE_STRINGS } from '../testing/hostile-strings.js';
import {
  LEASEHOLD_PROPERTY,
  fromServerEvent,
  fromStreamName,
  streamPrefix,
  toServerEvent,
  toServerEventId,
  toStreamName,
  toStreamState,
} from './kurrentdb-events.js';

const PREFIX = streamPrefix('leasehold', 'events');
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const anEvent = (overrides: Partial<EventData> = {}): EventData => ({
  id: 'event-1',
  type: 'Lease.Created',
  data: { name: 'lease-a', hosts: ['h1'] },
  metadata: { correlationId: 'c1', causationId: 'c0', actor: { userId: 'u', projectId: 'p' }, requestId: 'r-9' },
  ...overrides,
});

/** What the server hands back for an event we wrote: our property beside the server's own schema keys. */
const asStored = (event: EventData, streamId: string, commit: bigint, recordedAt: string): ServerEvent => {
  const sent = toServerEvent(event, recordedAt);
  return {
    streamId: toStreamName(PREFIX, streamId),
    id: sent.id,
    isJson: true,
    revision: 3n,
    type: sent.type,
    created: new Date(recordedAt),
    data: JSON.parse(JSON.stringify(sent.data)) as ServerEvent['data'],
    metadata: { '$schema.format': 'Json', '$schema.name': sent.type, ...(sent.metadata as Record<string, string>) },
    position: { commit, prepare: commit },
  } as ServerEvent;
};

describe('Leasehold events on KurrentDB', () => {
  it('live in streams named <prefix>.<log>.<stream id>, one namespace per log', () => {
    expect(toStreamName(PREFIX, 'lease-42')).toBe('leasehold.events.lease-42');
    expect(toStreamName(streamPrefix('staging', 'audit'), 'lease-42')).toBe('staging.audit.lease-42');
    expect(() => fromStreamName(PREFIX, 'leasehold.audit.lease-42')).toThrow(/not one of this store's/);
  });

  it.each(HOSTILE_STRINGS)('keep a stream id with $label exactly, and its category before the first dash', ({ value }) => {
    const streamId = `${value.replaceAll('-', '')}-${value}`;
    const name = toStreamName(PREFIX, streamId);
    expect(name).not.toMatch(LONE_SURROGATE);
    expect(name).not.toContain('\u0000');
    expect(fromStreamName(PREFIX, name)).toBe(streamId);
    expect(streamCategory(fromStreamName(PREFIX, name))).toBe(streamCategory(streamId));
  });

  it('get a UUID per event id, the same one on every retry and a different one for every other id', () => {
    const ids = ['event-1', 'event-2', 'x\ud800', 'x\ud801', 'x\ufffd', 'x\u0000', ''];
    const uuids = ids.map(toServerEventId);
    uuids.forEach((uuid) => expect(uuid).toMatch(UUID));
    expect(new Set(uuids).size).toBe(ids.length);
    expect(ids.map(toServerEventId)).toEqual(uuids);
  });

  it("map each expected revision to the client's stream state", () => {
    expect(toStreamState('no_stream')).toBe(NO_STREAM);
    expect(toStreamState(-1)).toBe(NO_STREAM);
    expect(toStreamState('any')).toBe(ANY);
    expect(toStreamState('stream_exists')).toBe(STREAM_EXISTS);
    expect(toStreamState(0)).toBe(0n);
    expect(toStreamState(41)).toBe(41n);
  });

  it('carry metadata as string values only, which multiStreamAppend requires', () => {
    const metadata = toServerEvent(anEvent(), '2026-11-26T09:00:00.000Z').metadata as Record<string, unknown>;
    expect(Object.keys(metadata)).toEqual([LEASEHOLD_PROPERTY]);
    expect(Object.values(metadata).every((value) => typeof value === 'string')).toBe(true);
  });

  it.each([
    ['an object', anEvent()],
    ['null data', anEvent({ data: null })],
    ['a number', anEvent({ data: 7 })],
    [
      'hostile text everywhere',
      anEvent({
        id: 'id\ud800\u0000',
        type: 'Type\udc00',
        data: { 'k\ud800': 'v\u0000' },
        metadata: { correlationId: '\ud800', causationId: 'c', actor: null, note: '\u0001' },
      }),
    ],
  ])('read back exactly as written: %s', (_label, event) => {
    const recorded = fromServerEvent(PREFIX, asStored(event, 'lease-9', 4_242n, '2026-11-26T09:00:00.000Z'));
    expect(recorded).toEqual({
      id: event.id,
      streamId: 'lease-9',
      revision: 3,
      position: 4_242,
      type: event.type,
      data: event.data ?? null,
      metadata: event.metadata,
      recordedAt: '2026-11-26T09:00:00.000Z',
    });
  });

  it('read the data back when the server hands it over as bytes rather than parsed JSON', () => {
    const stored = asStored(anEvent(), 'lease-9', 77n, '2026-11-26T09:00:00.000Z');
    const asBytes = { ...stored, isJson: false, data: Buffer.from(JSON.stringify(stored.data), 'utf8') } as ServerEvent;
    expect(fromServerEvent(PREFIX, asBytes).data).toEqual(anEvent().data);
  });

  it('refuse an event that Leasehold did not write, or one sent without a position', () => {
    const foreign = {
      ...asStored(anEvent(), 'lease-9', 10n, '2026-11-26T09:00:00.000Z'),
      metadata: { '$schema.format': 'Json' },
    } as ServerEvent;
    expect(() => fromServerEvent(PREFIX, foreign)).toThrow(/was not written by Leasehold/);
    const unplaced = { ...asStored(anEvent(), 'lease-9', 10n, '2026-11-26T09:00:00.000Z'), position: undefined } as ServerEvent;
    expect(() => fromServerEvent(PREFIX, unplaced)).toThrow(/without its log position/);
  });

  it("carry their type's version in the envelope; one written without it (before versions) is read through the upcasters", () => {
    const refusal = anEvent({ type: 'Audit.WriteRefused', data: { reason: 'r' } });
    const stored = asStored(refusal, 'audit-2030-01-01', 7n, '2030-01-01T00:00:00.000Z');
    expect(fromServerEvent(PREFIX, stored).data).toEqual({ reason: 'r' });
    const metadata = stored.metadata as Record<string, string>;
    const { version: _written, ...unversioned } = JSON.parse(metadata[LEASEHOLD_PROPERTY] ?? '') as Record<string, unknown>;
    const older = { ...stored, metadata: { ...metadata, [LEASEHOLD_PROPERTY]: JSON.stringify(unversioned) } } as ServerEvent;
    expect(fromServerEvent(PREFIX, older).data).toEqual({ reason: 'r', leaseId: null, leaseName: null });
  });
});
