import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { type PublicEvent, publicEventOf } from '#application/outbound/public-event.js';
import { sampleOf } from '#application/outbound/testing/published-samples.js';
import { kafkaMessageOf, kafkaTopic } from './kafka.channel.js';

const publicEvent = (type: Parameters<typeof sampleOf>[0], id: string, metadata: RecordedEvent['metadata']): PublicEvent => {
  const { streamId, data } = sampleOf(type, id);
  const event = publicEventOf({
    id: 'e-1',
    streamId,
    revision: 3,
    position: 42,
    type,
    data,
    metadata,
    recordedAt: '2030-01-01T10:00:00.123Z',
  });
  if (event === null) throw new Error(`no public form for ${type}`);
  return event;
};

const SYSTEM = { correlationId: 'c-1', causationId: 'e-0', actor: null, system: 'reactor' };

describe('Kafka messages', () => {
  it('a lease start: keyed by the lease id, a CloudEvents 1.0 value, trace and actor as headers', () => {
    const message = kafkaMessageOf(publicEvent('Lease.Started', 'lease-9', SYSTEM), '/region-one');
    expect(message.key).toBe('lease-9');
    expect(JSON.parse(String(message.value))).toEqual({
      specversion: '1.0',
      id: 'e-1',
      source: '/region-one',
      type: 'lease.started',
      time: '2030-01-01T10:00:00.123000Z',
      subject: 'leases/lease-9',
      datacontenttype: 'application/json',
      dataschema: 'urn:leasehold:events:lease.started:v1',
      position: 42,
      data: { lease_id: 'lease-9', at: '2030-01-01T10:00:00.000Z' },
    });
    expect(message.headers).toEqual({
      'content-type': 'application/cloudevents+json; charset=UTF-8',
      correlation_id: 'c-1',
      causation_id: 'e-0',
      actor_system: 'reactor',
    });
  });

  it("a user's write carries the request id and the user and project, no system", () => {
    const metadata = { correlationId: 'req-1', causationId: 'req-1', actor: { userId: 'u-1', projectId: 'p-1' }, requestId: 'req-1' };
    expect(kafkaMessageOf(publicEvent('Lease.Renamed', 'lease-9', metadata), '/l').headers).toEqual({
      'content-type': 'application/cloudevents+json; charset=UTF-8',
      correlation_id: 'req-1',
      causation_id: 'req-1',
      request_id: 'req-1',
      actor_user_id: 'u-1',
      actor_project_id: 'p-1',
    });
  });

  it.each([
    ['Lease.Created', 'leasehold.leases'],
    ['Reservation.Healed', 'leasehold.leases'],
    ['Host.Booked', 'leasehold.hosts'],
    ['HostActivity.InstanceNotified', 'leasehold.hosts'],
    ['HostRegistry.HostAdded', 'leasehold.hosts'],
    ['FloatingIp.Booked', 'leasehold.floatingips'],
    ['FloatingIpRegistry.Added', 'leasehold.floatingips'],
    ['ResourceProperty.PrivacyChanged', 'leasehold.properties'],
    ['FlavorCatalog.FlavorAdded', 'leasehold.flavors'],
  ] as const)('%s goes to %s, keyed by its subject', (type, topic) => {
    const event = publicEvent(type, 'subject-1', SYSTEM);
    expect(kafkaTopic('leasehold', event)).toBe(topic);
    expect(kafkaMessageOf(event, '/l').key).toBe('subject-1');
  });
});
