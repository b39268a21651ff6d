import { describe, expect, it } from 'vitest';
import type { PublicEvent } from '#application/outbound/public-event.js';
import { publicEventOf } from '#application/outbound/public-event.js';
import { sampleOf } from '#application/outbound/testing/published-samples.js';
import { notificationMessageId, osloEnvelopeOf, osloTimestamp } from './oslo-envelope.js';
import type { BlazarNotification } from './lease-notifications.js';

const event = (recordedAt: string, metadata: Record<string, unknown> = {}): PublicEvent => {
  const { streamId, data } = sampleOf('Lease.Started', 'lease-9');
  const made = publicEventOf({
    id: 'e-1',
    streamId,
    revision: 3,
    position: 42,
    type: 'Lease.Started',
    data,
    recordedAt,
    metadata: { correlationId: 'req-1', causationId: 'req-1', actor: { userId: 'u-1', projectId: 'p-1' }, requestId: 'req-1', ...metadata },
  });
  if (made === null) throw new Error('no public form');
  return made;
};

const NOTIFICATION = { eventType: 'lease.event.start_lease', payload: { lease_id: 'lease-9' } } as unknown as BlazarNotification;

describe('oslo.messaging envelope 2.0', () => {
  it("is oslo's serialize_msg: the version and the message as a JSON string, with the Notifier's fields in its order", () => {
    const envelope = osloEnvelopeOf(event('2030-01-01T10:00:00.123Z'), NOTIFICATION, 'blazar.lease');
    expect(Object.keys(envelope)).toEqual(['oslo.version', 'oslo.message']);
    expect(envelope['oslo.version']).toBe('2.0');
    const message = JSON.parse(envelope['oslo.message']) as Record<string, unknown>;
    expect(message).toEqual({
      message_id: notificationMessageId('e-1', 'lease.event.start_lease'),
      publisher_id: 'blazar.lease',
      event_type: 'lease.event.start_lease',
      priority: 'INFO',
      payload: { lease_id: 'lease-9' },
      timestamp: '2030-01-01 10:00:00.123000',
      _unique_id: notificationMessageId('e-1', 'lease.event.start_lease').replaceAll('-', ''),
      _context_request_id: 'req-1',
      _context_global_request_id: 'req-1',
      _context_user_id: 'u-1',
      _context_project_id: 'p-1',
    });
    expect(Object.keys(message).slice(0, 6)).toEqual(['message_id', 'publisher_id', 'event_type', 'priority', 'payload', 'timestamp']);
  });

  it("timestamps are Python's str(datetime): microseconds only when there are some", () => {
    expect(osloTimestamp('2030-01-01T10:00:00.000Z')).toBe('2030-01-01 10:00:00');
    expect(osloTimestamp('2030-01-01T10:00:00.5Z')).toBe('2030-01-01 10:00:00.500000');
    expect(osloTimestamp('2030-01-01T10:00:00.123000Z')).toBe('2030-01-01 10:00:00.123000');
    expect(osloTimestamp('2030-01-01T12:00:00.007+02:00')).toBe('2030-01-01 10:00:00.007000');
    expect(() => osloTimestamp('yesterday')).toThrow(/not an ISO-8601 time/);
  });

  it('message ids are name-based UUIDs: the same for a replay, different per event and per notification', () => {
    const id = notificationMessageId('e-1', 'lease.update');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(notificationMessageId('e-1', 'lease.update')).toBe(id);
    expect(notificationMessageId('e-2', 'lease.update')).not.toBe(id);
    expect(notificationMessageId('e-1', 'lease.event.before_end_lease.stop')).not.toBe(id);
  });

  it('an event Leasehold itself recorded has no user or project in the context', () => {
    const message = JSON.parse(
      osloEnvelopeOf(event('2030-01-01T10:00:00.000Z', { actor: null, system: 'reactor', requestId: undefined }), NOTIFICATION, 'x')[
        'oslo.message'
      ],
    ) as Record<string, unknown>;
    expect(message).toMatchObject({ _context_user_id: null, _context_project_id: null, _context_request_id: null, publisher_id: 'x' });
  });
});
