import { describe, expect, it } from 'vitest';
import { meaningOf } from './nova-notification.mapping.js';
import { type NovaNotification, parseNovaNotification } from './oslo-envelope.js';
import {
  aggregateAddHostEnd,
  aggregateCreateStart,
  enveloped,
  flavorCreate,
  instanceCreateEnd,
  instanceDeleteEnd,
  serviceCreate,
  serviceUpdate,
} from './testing/nova-samples.js';

const parsed = (message: unknown): NovaNotification => {
  const result = parseNovaNotification(enveloped(message));
  if (!result.ok) throw new Error(result.reason);
  return result.notification;
};

const withData = <T extends { payload: { 'nova_object.data': object } }>(sample: T, data: Record<string, unknown>): unknown => ({
  ...sample,
  payload: { ...sample.payload, 'nova_object.data': { ...sample.payload['nova_object.data'], ...data } },
});

describe('meaningOf', () => {
  it('service.update of a nova-compute: its host, disabled and forced_down (the payload has no up/down)', () => {
    expect(meaningOf(parsed(serviceUpdate))).toEqual({ kind: 'service', serviceHost: 'fake-host-3', disabled: true, forcedDown: false });
    expect(meaningOf(parsed(withData(serviceUpdate, { disabled: false, forced_down: true })))).toEqual({
      kind: 'service',
      serviceHost: 'fake-host-3',
      disabled: false,
      forcedDown: true,
    });
  });

  it('ignores service.update of other binaries and service.create', () => {
    expect(meaningOf(parsed(withData(serviceUpdate, { binary: 'nova-scheduler' })))).toMatchObject({ kind: 'ignored' });
    expect(meaningOf(parsed(serviceCreate))).toMatchObject({ kind: 'ignored', reason: 'event type service.create is not consumed' });
  });

  it('refuses a service.update missing its host or flags', () => {
    expect(meaningOf(parsed(withData(serviceUpdate, { host: null })))).toMatchObject({ kind: 'invalid' });
    expect(meaningOf(parsed(withData(serviceUpdate, { forced_down: 'yes' })))).toMatchObject({
      kind: 'invalid',
      reason: expect.stringContaining('forced_down') as string,
    });
  });

  it('instance.create.end: the server, its project, flavor and state, on its service host', () => {
    expect(meaningOf(parsed(instanceCreateEnd))).toEqual({
      kind: 'instance',
      serviceHost: 'fake-host-1',
      activity: {
        kind: 'instance',
        instanceId: '19286185-f6e9-49b6-a085-c3bf8affcb4c',
        projectId: '91a476bcbf594353b8c6b18b2df57f6a',
        flavorId: 'ce958a18-3d2f-4359-b759-80de1c45fe35',
        state: 'active',
      },
    });
    expect(meaningOf(parsed(instanceDeleteEnd))).toMatchObject({ kind: 'instance', activity: { state: 'deleted' } });
  });

  it('an instance not on a host yet is ignored; one without a uuid is invalid; a missing flavor is null', () => {
    expect(meaningOf(parsed(withData(instanceCreateEnd, { host: null })))).toMatchObject({ kind: 'ignored' });
    expect(meaningOf(parsed(withData(instanceCreateEnd, { uuid: undefined })))).toMatchObject({ kind: 'invalid' });
    expect(meaningOf(parsed(withData(instanceCreateEnd, { flavor: null })))).toMatchObject({
      kind: 'instance',
      activity: { flavorId: null },
    });
  });

  it('aggregate.*: the aggregate and the hosts it lists (none before it has any)', () => {
    expect(meaningOf(parsed(aggregateAddHostEnd))).toEqual({
      kind: 'aggregate',
      hosts: ['fake-host-1'],
      activity: {
        kind: 'aggregate',
        aggregateUuid: '352b1b90-6f70-4028-a718-3fc8d872dac5',
        aggregateId: 1,
        aggregateName: 'freepool',
        hosts: ['fake-host-1'],
      },
    });
    expect(meaningOf(parsed(aggregateCreateStart))).toMatchObject({ kind: 'aggregate', hosts: [], activity: { aggregateId: null } });
    expect(meaningOf(parsed(withData(aggregateAddHostEnd, { hosts: [1] })))).toMatchObject({ kind: 'invalid' });
    expect(meaningOf(parsed(withData(aggregateAddHostEnd, { name: undefined })))).toMatchObject({ kind: 'invalid' });
  });

  it('other event types mean nothing', () => {
    expect(meaningOf(parsed(flavorCreate))).toEqual({ kind: 'ignored', reason: 'event type flavor.create is not consumed' });
  });
});
