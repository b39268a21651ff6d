import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { EVENT_CATALOGUE } from '../history/event-catalogue.js';
import { PUBLIC_SCHEMA_VERSION, publicEventOf } from './public-event.js';
import { PUBLISHED_TYPES, sampleOf } from './testing/published-samples.js';

const recorded = (type: string, streamId: string, data: unknown, position = 7): RecordedEvent => ({
  id: `event-${position}`,
  streamId,
  revision: 0,
  position,
  type,
  data,
  metadata: { correlationId: 'req-1', causationId: 'req-1', actor: { userId: 'user-1', projectId: 'project-1' }, requestId: 'req-1' },
  recordedAt: '2030-01-01T10:00:00.123Z',
});

const KIND_BY_CATEGORY: Readonly<Record<string, string>> = {
  lease: 'lease',
  leaserequest: 'lease_request',
  host: 'host',
  hostactivity: 'host',
  hostregistry: 'host',
  floatingip: 'floating_ip',
  floatingipregistry: 'floating_ip',
  property: 'resource_property',
  flavorcatalog: 'flavor',
  ratecard: 'rate_card',
  freepool: 'freepool',
  quota: 'quota',
  fairshare: 'fair_share',
  network: 'network',
  networkregistry: 'network',
  networkproperty: 'network_property',
};

describe('publicEventOf: a stored event as the outbound channels send it', () => {
  it.each(PUBLISHED_TYPES)('%s gets its public type and data, and the subject its stream is about', (type) => {
    const { streamId, data } = sampleOf(type, 'subject-9');
    const event = publicEventOf(recorded(type, streamId, data));
    expect(event).toMatchObject({
      id: 'event-7',
      position: 7,
      type: EVENT_CATALOGUE[type].publicType,
      recorded_at: '2030-01-01T10:00:00.123000Z',
      correlation_id: 'req-1',
      request_id: 'req-1',
      actor: { user_id: 'user-1', project_id: 'project-1', system: null },
      subject: { kind: KIND_BY_CATEGORY[streamId.split('-')[0] ?? ''], id: 'subject-9' },
      schemaVersion: PUBLIC_SCHEMA_VERSION,
    });
  });

  it('has no public form for a type outside the catalogue or an event of the audit log', () => {
    expect(publicEventOf(recorded('Lease.Teleported', 'lease-1', { leaseId: '1' }))).toBeNull();
    const refusal = {
      operation: 'leases:create',
      method: 'POST',
      path: '/v1/leases',
      status: 403,
      code: 'FORBIDDEN',
      reason: 'policy',
      at: '2030-01-01T10:00:00.000Z',
    };
    expect(publicEventOf(recorded('Audit.WriteRefused', 'audit-2030-01-01', refusal))).toBeNull();
  });
});
