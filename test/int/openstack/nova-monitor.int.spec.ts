/**
 * Host health and activity from the real Nova: the notification consumer on its own durable queue
 * (RabbitMQ of the control plane) and the polling monitor, appending to a fresh SQLite ledger in
 * which fake-host-2 is a Leasehold host. The computes are restored in afterAll: other tests share them.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, type Socket, connect as tcpConnect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connect } from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandHandler } from '#application/command-handler.js';
import { type ReactorCommands, openReactorCommands } from '#reactor/commands/reactor-command-bus.js';
import { type NovaMonitoring, startNovaMonitoring } from '#reactor/host-monitor/nova-monitoring.js';
import { enveloped, aggregateAddHostEnd } from '#reactor/nova-notifications/testing/nova-samples.js';
import type { ReactorLogEntry } from '#reactor/scheduler.js';
import { hostActivityStream, hostStream } from '#domain/index.js';
import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { NovaClient, ignoreNotFound } from '#plugins/openstack/index.js';
import { ROOT } from '../../helpers/system.js';
import { registerHosts } from '../reactor.fixtures.js';
import { OPENSTACK_ENV_FILE, eventually, openStackEnv, sessionFor, uniqueName } from './openstack.fixtures.js';

const run = promisify(execFile);

describe.skipIf(!OPENSTACK_ENV_FILE)('Nova host monitoring into the ledger (real Nova and RabbitMQ)', () => {
  const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);
  const nova = OPENSTACK_ENV_FILE ? new NovaClient(sessionFor(env.admin)) : (undefined as never);
  const computeCtl = OPENSTACK_ENV_FILE
    ? (/^LEASEHOLD_OS_COMPUTE_CTL=(.+)$/m.exec(readFileSync(OPENSTACK_ENV_FILE, 'utf8'))?.[1] ??
      join(ROOT, 'scripts', 'services', 'openstack', 'compute.sh'))
    : '';
  const hostName = 'fake-host-2';
  const queue = uniqueName('leasehold-nova-notifications-test');
  const dir = mkdtempSync(join(tmpdir(), 'nova-monitor-int-'));
  const logs: ReactorLogEntry[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];
  let store: EventStore;
  let commands: ReactorCommands;
  let hostId = '';
  let serviceId = '';
  let consumerOnly: NovaMonitoring | null = null;
  let withPolling: NovaMonitoring | null = null;

  const listComputeServices = () => nova.listServices({ binary: 'nova-compute' });
  const ctl = (action: 'stop' | 'start') => run(computeCtl, [action, hostName], { timeout: 90_000 });

  beforeAll(async () => {
    store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
    commands = await openReactorCommands({ handler: new CommandHandler(store), healing: null });
    [hostId = ''] = await registerHosts(store, [hostName]);
    const [service] = await nova.listServices({ binary: 'nova-compute', host: hostName });
    if (service === undefined) throw new Error(`no nova-compute on ${hostName}`);
    serviceId = service.id;
    // notifications only: the first tests prove that path alone
    consumerOnly = startNovaMonitoring({
      store,
      commands: commands.bus,
      settings: { notificationsUrl: env.amqpUrl, pollingIntervalSeconds: 0 },
      listComputeServices,
      log: (entry) => logs.push(entry),
      queue,
    });
    await consumerOnly.consumer?.ready();
  });

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await nova.updateService(serviceId, { status: 'enabled', forced_down: false }).catch(() => undefined);
    await ctl('start').catch(() => undefined);
    await withPolling?.stop();
    await consumerOnly?.stop();
    const connection = await connect(env.amqpUrl);
    const channel = await connection.createChannel();
    await channel.deleteQueue(queue);
    await connection.close();
    await commands.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  const healthEvents = async (): Promise<RecordedEvent[]> =>
    (await store.readStream(hostStream(hostId))).filter((e) => e.type !== 'Host.Registered');
  const nextHealth = async (what: string, after: number, timeoutMs: number): Promise<RecordedEvent> =>
    eventually(what, async () => (await healthEvents()).find((e) => e.revision > after), timeoutMs, 100);
  const lastRevision = async (): Promise<number> => store.streamRevision(hostStream(hostId));

  it('a compute forced down is recorded as Host.WentDown (forced_down) from its service.update within 10 s', async () => {
    const before = await lastRevision();
    const started = Date.now();
    await nova.updateService(serviceId, { forced_down: true });
    const event = await nextHealth('Host.WentDown', before, 10_000);
    const elapsedMs = Date.now() - started;
    console.info(`forced down -> Host.WentDown in ${elapsedMs} ms`);
    expect(elapsedMs).toBeLessThan(10_000);
    expect(event).toMatchObject({
      type: 'Host.WentDown',
      data: { hostId, reasons: ['forced_down'], source: 'notification' },
      metadata: { actor: null, reaction: 'nova-notification' },
    });
  });

  it('disabling it changes the reasons; re-enabling and unforcing brings it up', async () => {
    let revision = await lastRevision();
    await nova.updateService(serviceId, { status: 'disabled', disabled_reason: 'leasehold monitor test' });
    const changed = await nextHealth('Host.DownReasonsChanged', revision, 10_000);
    expect(changed).toMatchObject({
      type: 'Host.DownReasonsChanged',
      data: { reasons: ['disabled', 'forced_down'], source: 'notification' },
    });
    revision = changed.revision;
    await nova.updateService(serviceId, { forced_down: false });
    const unforced = await nextHealth('reasons without forced_down', revision, 10_000);
    expect(unforced).toMatchObject({ type: 'Host.DownReasonsChanged', data: { reasons: ['disabled'] } });
    revision = unforced.revision;
    await nova.updateService(serviceId, { status: 'enabled' });
    expect(await nextHealth('Host.CameUp', revision, 10_000)).toMatchObject({
      type: 'Host.CameUp',
      data: { hostId, source: 'notification' },
    });
  });

  it('a server created on the host is recorded as its activity (instance.create.end)', { timeout: 150_000 }, async () => {
    const name = uniqueName('lh-monitor-server');
    const { id } = await nova.createServer({
      name,
      imageRef: env.imageId,
      flavorRef: env.flavorId,
      networks: 'none',
      availabilityZone: `nova:${hostName}`,
    });
    cleanups.push(() => ignoreNotFound(nova.deleteServer(id)));
    // other tests share the cloud (a freepool holding the host refuses a plain flavor): say so plainly
    const server = await eventually(
      'the server to be ACTIVE or ERROR',
      async () => {
        const current = await nova.getServer(id);
        return current.status === 'ACTIVE' || current.status === 'ERROR' ? current : undefined;
      },
      120_000,
      500,
    );
    expect(server.fault?.message ?? null, `server ${id} could not be booted on ${hostName}`).toBeNull();
    const created = await eventually(
      'HostActivity.InstanceNotified instance.create.end',
      async () =>
        (await store.readStream(hostActivityStream(hostId))).find(
          (e) =>
            e.type === 'HostActivity.InstanceNotified' &&
            (e.data as { instanceId: string; eventType: string }).instanceId === id &&
            (e.data as { eventType: string }).eventType === 'instance.create.end',
        ),
      15_000,
      250,
    );
    expect(created.data).toMatchObject({
      hostId,
      instanceId: id,
      projectId: expect.any(String) as string,
      flavorId: expect.any(String) as string,
      state: 'active',
    });
    await nova.deleteServer(id);
  });

  it('a malformed message is acknowledged and the consumer goes on; a redelivered message is recorded once', async () => {
    const connection = await connect(env.amqpUrl);
    const channel = await connection.createConfirmChannel();
    const synthetic = (messageId: string) => ({
      ...aggregateAddHostEnd,
      message_id: messageId,
      timestamp: '2026-11-22 07:00:00.000000',
      payload: {
        ...aggregateAddHostEnd.payload,
        'nova_object.data': { ...aggregateAddHostEnd.payload['nova_object.data'], name: messageId, hosts: [hostName] },
      },
    });
    const messageId = uniqueName('synthetic');
    const sentinel = uniqueName('sentinel');
    const publish = (body: string) => channel.publish('nova', 'versioned_notifications.info', Buffer.from(body));
    publish('{"oslo.version": "2.0", "oslo.message": "{not json');
    publish('\u0000garbage');
    publish(enveloped({ ...synthetic(messageId), event_type: 'compute.exploded' }));
    publish(
      enveloped({ ...synthetic(messageId), payload: { ...synthetic(messageId).payload, 'nova_object.data': { hosts: [hostName] } } }),
    );
    publish(enveloped(synthetic(messageId)));
    publish(enveloped(synthetic(messageId)));
    publish(enveloped(synthetic(sentinel)));
    await channel.waitForConfirms();
    await connection.close();
    const recorded = async (id: string) =>
      (await store.readStream(hostActivityStream(hostId))).filter((e) => (e.data as { messageId: string }).messageId === id);
    // messages are handled in order: once the last one is recorded, all before it were handled
    await eventually('the sentinel notification', async () => ((await recorded(sentinel)).length > 0 ? true : undefined), 10_000, 100);
    expect(await recorded(messageId)).toHaveLength(1);
    expect(logs.filter((l) => l.event === 'notification' && l.handledAs === 'invalid' && l.messageId === messageId)).toHaveLength(1);
    expect(logs.filter((l) => l.event === 'notification-malformed')).toHaveLength(2);
  });

  it('reconnects when the connection to RabbitMQ is lost, and consumes what was published meanwhile', async () => {
    const upstream = new URL(env.amqpUrl);
    const sockets = new Set<Socket>();
    const proxy = createServer((client) => {
      const server = tcpConnect(Number(upstream.port), upstream.hostname);
      const end = () => {
        client.destroy();
        server.destroy();
      };
      for (const socket of [client, server]) {
        sockets.add(socket);
        socket.on('error', end).on('close', end);
      }
      client.pipe(server).pipe(client);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxied = new URL(env.amqpUrl);
    proxied.port = String((proxy.address() as AddressInfo).port);
    const ownStore = SqliteEventStore.open({ file: join(dir, 'reconnect.sqlite') });
    const [ownHostId = ''] = await registerHosts(ownStore, [hostName]);
    const ownQueue = uniqueName('leasehold-nova-reconnect-test');
    const ownLogs: ReactorLogEntry[] = [];
    const ownCommands = await openReactorCommands({ handler: new CommandHandler(ownStore), healing: null });
    const monitoring = startNovaMonitoring({
      store: ownStore,
      commands: ownCommands.bus,
      settings: { notificationsUrl: proxied.toString(), pollingIntervalSeconds: 0 },
      listComputeServices,
      log: (e) => ownLogs.push(e),
      queue: ownQueue,
    });
    try {
      await monitoring.consumer?.ready();
      for (const socket of sockets) socket.destroy();
      const messageId = uniqueName('while-away');
      const connection = await connect(env.amqpUrl);
      const channel = await connection.createConfirmChannel();
      const body = {
        ...aggregateAddHostEnd,
        message_id: messageId,
        payload: {
          ...aggregateAddHostEnd.payload,
          'nova_object.data': { ...aggregateAddHostEnd.payload['nova_object.data'], hosts: [hostName] },
        },
      };
      channel.publish('nova', 'versioned_notifications.info', Buffer.from(enveloped(body)));
      await channel.waitForConfirms();
      await connection.close();
      await eventually(
        'the notification published while away',
        async () =>
          (await ownStore.readStream(hostActivityStream(ownHostId))).some((e) => (e.data as { messageId: string }).messageId === messageId)
            ? true
            : undefined,
        15_000,
        100,
      );
      expect(ownLogs.some((l) => l.event === 'notifications-reconnect')).toBe(true);
    } finally {
      await monitoring.stop();
      proxy.close();
      const connection = await connect(env.amqpUrl);
      await (await connection.createChannel()).deleteQueue(ownQueue);
      await connection.close();
      await ownCommands.close();
      await ownStore.close();
    }
  });

  it(
    'a stopped nova-compute is seen by the polling monitor once Nova reports it down, and up again after its start',
    { timeout: 180_000 },
    async () => {
      withPolling = startNovaMonitoring({
        store,
        commands: commands.bus,
        settings: { notificationsUrl: null, pollingIntervalSeconds: 5 },
        listComputeServices,
        log: (entry) => logs.push(entry),
      });
      // nothing to change while the host is up and enabled
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      let revision = await lastRevision();
      await ctl('stop');
      const stoppedAt = Date.now();
      const down = await nextHealth('Host.WentDown by polling', revision, 75_000);
      console.info(`compute stopped -> Host.WentDown (polling) in ${Date.now() - stoppedAt} ms`);
      expect(down).toMatchObject({ type: 'Host.WentDown', data: { reasons: ['service_down'], source: 'polling' } });
      revision = down.revision;
      await ctl('start');
      const up = await nextHealth('Host.CameUp by polling', revision, 30_000);
      expect(up).toMatchObject({ type: 'Host.CameUp', data: { source: 'polling' } });
      // both monitors agree: no flapping afterwards
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(await lastRevision()).toBe(up.revision);
    },
  );
});
