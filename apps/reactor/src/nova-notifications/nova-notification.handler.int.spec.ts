import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  HOST_REGISTRY_STREAM,
  type HostRegistryEvent,
  foldEvents,
  hostActivityStream,
  hostDecider,
  hostRegistryDecider,
  hostStream,
} from '#domain/index.js';
import { CommandHandler } from '#application/command-handler.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { ManagedHosts } from '../host-monitor/managed-hosts.js';
import type { ReactorLogEntry } from '../scheduler.js';
import { type ReactorCommands, openReactorCommands } from '../commands/reactor-command-bus.js';
import { NovaNotificationHandler } from './nova-notification.handler.js';
import { enveloped, instanceCreateEnd, serviceUpdate } from './testing/nova-samples.js';

const NOW = '2026-11-22T03:00:00.000Z';
const meta = { correlationId: 'c', causationId: 'c', actor: null };

/** Registers a host as the API does: registry entry and host stream in one append. */
const register = async (store: EventStore, name: string): Promise<string> => {
  const registry = foldEvents(
    hostRegistryDecider,
    (await store.readStream(HOST_REGISTRY_STREAM)).map((e) => e as unknown as HostRegistryEvent),
  );
  const [added] = hostRegistryDecider.decide({ type: 'AddHostToRegistry', data: { hypervisorHostname: name } }, registry);
  if (added?.type !== 'HostRegistry.HostAdded') throw new Error('not added');
  const info = {
    hypervisorHostname: name,
    serviceName: name,
    vcpus: 1,
    memoryMb: 512,
    localGb: 1,
    cpuInfo: '{}',
    hypervisorType: 'fake',
    hypervisorVersion: 1,
    availabilityZone: 'nova',
  };
  const registered = hostDecider.decide(
    { type: 'RegisterHost', data: { hostId: added.data.hostId, info, capabilities: {}, now: NOW } },
    hostDecider.initialState(),
  );
  await store.appendMultiple([
    { streamId: HOST_REGISTRY_STREAM, expectedRevision: 'any', events: [{ id: `reg-${name}`, ...added, metadata: meta }] },
    {
      streamId: hostStream(added.data.hostId),
      expectedRevision: 'no_stream',
      events: registered.map((e, i) => ({ id: `host-${name}-${i}`, ...e, metadata: meta })),
    },
  ]);
  return added.data.hostId;
};

const onHost = <T extends { payload: { 'nova_object.data': object } }>(sample: T, host: string, messageId: string): string =>
  enveloped({
    ...sample,
    message_id: messageId,
    payload: { ...sample.payload, 'nova_object.data': { ...sample.payload['nova_object.data'], host } },
  });

describe('NovaNotificationHandler (SQLite ledger)', () => {
  let store: EventStore;
  let handler: NovaNotificationHandler;
  let commands: ReactorCommands;
  let logs: ReactorLogEntry[];
  let hostId: string;

  beforeEach(async () => {
    store = SqliteEventStore.open({ file: ':memory:' });
    logs = [];
    hostId = await register(store, 'fake-host-3');
    commands = await openReactorCommands({ handler: new CommandHandler(store), healing: null });
    handler = new NovaNotificationHandler({ hosts: new ManagedHosts(store), commands: commands.bus, log: (e) => logs.push(e) });
  });
  afterEach(async () => {
    await commands.close();
    await store.close();
  });

  const healthTypes = async () => (await store.readStream(hostStream(hostId))).map((e) => e.type).slice(1);

  it('a service.update of a Leasehold host is its health, recorded once however often it is delivered', async () => {
    expect(await handler.handle(enveloped(serviceUpdate))).toBe('recorded');
    expect(await handler.handle(enveloped(serviceUpdate))).toBe('unchanged');
    const [, wentDown] = await store.readStream(hostStream(hostId));
    expect(wentDown).toMatchObject({
      type: 'Host.WentDown',
      data: { hostId, reasons: ['disabled'], source: 'notification', observedAt: '2026-11-22T03:01:05.399Z' },
    });
    expect(wentDown?.metadata).toMatchObject({ causationId: serviceUpdate.message_id, actor: null, reaction: 'nova-notification' });
  });

  it('an instance notification on a Leasehold host is its activity; a redelivery adds nothing', async () => {
    const body = onHost(instanceCreateEnd, 'fake-host-3', 'm-1');
    expect(await handler.handle(body)).toBe('recorded');
    expect(await handler.handle(body)).toBe('duplicate');
    const events = await store.readStream(hostActivityStream(hostId));
    expect(events.map((e) => e.type)).toEqual(['HostActivity.InstanceNotified']);
    expect(events[0]?.data).toMatchObject({
      eventType: 'instance.create.end',
      instanceId: instanceCreateEnd.payload['nova_object.data'].uuid,
      messageId: 'm-1',
    });
  });

  it('hosts Leasehold does not manage are ignored (logged at debug)', async () => {
    expect(await handler.handle(onHost(serviceUpdate, 'fake-host-1', 'm-2'))).toBe('unmanaged');
    expect(await handler.handle(onHost(instanceCreateEnd, 'fake-host-1', 'm-3'))).toBe('unmanaged');
    expect(logs).toContainEqual(expect.objectContaining({ level: 'debug', handledAs: 'unmanaged', hosts: ['fake-host-1'] }));
    expect(await healthTypes()).toEqual([]);
  });

  it.each([
    ['malformed JSON', '{"oslo.version": "2.0", "oslo.message": "{', 'malformed'],
    ['an envelope without a message id', enveloped({ ...serviceUpdate, message_id: undefined }), 'malformed'],
    ['an unknown event type', enveloped({ ...serviceUpdate, event_type: 'volume.exploded' }), 'ignored'],
    [
      'a service.update without its flags',
      enveloped({
        ...serviceUpdate,
        payload: { ...serviceUpdate.payload, 'nova_object.data': { binary: 'nova-compute', host: 'fake-host-3' } },
      }),
      'invalid',
    ],
  ])('%s is logged and acknowledged, never thrown', async (_what, body, handledAs) => {
    expect(await handler.handle(body)).toBe(handledAs);
    expect(await healthTypes()).toEqual([]);
  });

  it('a store failure rejects, so that the message goes back to the queue', async () => {
    await store.close();
    await expect(handler.handle(enveloped(serviceUpdate))).rejects.toThrow();
  });
});
