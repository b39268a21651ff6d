/**
 * The control plane's nova.conf emits versioned notifications on RabbitMQ (exchange nova, routing key
 * versioned_notifications.info) for what Leasehold will consume: aggregate.*, instance.* and
 * service.update. Read with scripts/services/openstack/bin/notifications.py (kombu, its own queue),
 * since the project has no AMQP client yet.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NovaClient, ignoreNotFound, isNotFound } from '#plugins/openstack/index.js';
import { ROOT } from '../../helpers/system.js';
import { OPENSTACK_ENV_FILE, eventually, openStackEnv, sessionFor, uniqueName } from './openstack.fixtures.js';

interface Notification {
  readonly event_type: string;
  readonly publisher_id: string;
  readonly routing_key: string;
  readonly payload: { readonly 'nova_object.name': string; readonly 'nova_object.data': Readonly<Record<string, unknown>> };
}

describe.skipIf(!OPENSTACK_ENV_FILE)('Nova versioned notifications (real RabbitMQ)', () => {
  const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);
  const nova = OPENSTACK_ENV_FILE ? new NovaClient(sessionFor(env.admin)) : (undefined as never);
  const host = env?.computeHosts[1] ?? '';
  const received: Notification[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];
  let listener: ChildProcess | null = null;

  beforeAll(async () => {
    const script = join(ROOT, 'scripts', 'services', 'openstack', 'bin', 'notifications.py');
    const child = spawn('/usr/bin/python3', [script, env.amqpUrl, '600'], { stdio: ['ignore', 'pipe', 'pipe'] });
    listener = child;
    let buffer = '';
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`notifications.py exited with ${String(code)}: ${stderr}`)));
      child.stdout?.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const lines = buffer.split('\n');
        buffer = lines.pop() ?? '';
        for (const line of lines) {
          if (line === 'listening') resolve();
          else if (line.trim() !== '') received.push(JSON.parse(line) as Notification);
        }
      });
    });
  });

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    listener?.kill();
  });

  const arrival = (what: string, match: (n: Notification) => boolean, timeoutMs = 15_000): Promise<Notification> =>
    eventually(what, () => Promise.resolve(received.find(match)), timeoutMs, 100);

  const data = (n: Notification): Readonly<Record<string, unknown>> => n.payload['nova_object.data'];

  it('announces aggregate changes', async () => {
    const name = uniqueName('lh-notif-agg');
    const aggregate = await nova.createAggregate(name);
    cleanups.push(async () => {
      await ignoreNotFound(nova.removeAggregateHost(aggregate.id, host));
      await ignoreNotFound(nova.deleteAggregate(aggregate.id));
    });
    await nova.addAggregateHost(aggregate.id, host);
    await nova.setAggregateMetadata(aggregate.id, { 'blazar:owner': env.demoProjectId });
    await nova.removeAggregateHost(aggregate.id, host);
    await nova.deleteAggregate(aggregate.id);
    const ofThis = (type: string) => (n: Notification) => n.event_type === type && data(n)['uuid'] === aggregate.uuid;
    const created = await arrival('aggregate.create.end', ofThis('aggregate.create.end'));
    expect(created).toMatchObject({ routing_key: 'versioned_notifications.info', payload: { 'nova_object.name': 'AggregatePayload' } });
    expect(data(await arrival('aggregate.add_host.end', ofThis('aggregate.add_host.end')))['hosts']).toEqual([host]);
    expect(data(await arrival('aggregate.update_metadata.end', ofThis('aggregate.update_metadata.end')))['metadata']).toEqual({
      'blazar:owner': env.demoProjectId,
    });
    await arrival('aggregate.remove_host.end', ofThis('aggregate.remove_host.end'));
    await arrival('aggregate.delete.end', ofThis('aggregate.delete.end'));
  });

  it("announces a server's creation and deletion on its host", { timeout: 120_000 }, async () => {
    const name = uniqueName('lh-notif-server');
    const { id } = await nova.createServer({
      name,
      imageRef: env.imageId,
      flavorRef: env.flavorId,
      networks: 'none',
      availabilityZone: `nova:${host}`,
    });
    cleanups.push(() => ignoreNotFound(nova.deleteServer(id)));
    const ofThis = (type: string) => (n: Notification) => n.event_type === type && data(n)['uuid'] === id;
    const created = await arrival('instance.create.end', ofThis('instance.create.end'), 90_000);
    expect(created.publisher_id).toBe(`nova-compute:${host}`);
    expect(data(created)).toMatchObject({ host, state: 'active', display_name: name });
    await nova.deleteServer(id);
    const deleted = await arrival('instance.delete.end', ofThis('instance.delete.end'), 60_000);
    expect(data(deleted)).toMatchObject({ host, state: 'deleted' });
    await eventually('the server to be gone', async () =>
      nova.getServer(id).then(
        () => undefined,
        (e: unknown) => (isNotFound(e) ? true : undefined),
      ),
    );
  });

  it('announces a compute service being disabled, forced down and restored (service.update)', async () => {
    const [service] = await nova.listServices({ binary: 'nova-compute', host });
    if (service === undefined) throw new Error(`no nova-compute on ${host}`);
    cleanups.push(() => nova.updateService(service.id, { status: 'enabled', forced_down: false }));
    // each step's notification must come after the previous step's
    let cursor = received.length;
    const update = async (what: string, match: (d: Readonly<Record<string, unknown>>) => boolean): Promise<Notification> => {
      const found = await arrival(
        what,
        (n) => received.indexOf(n) >= cursor && n.event_type === 'service.update' && data(n)['host'] === host && match(data(n)),
      );
      cursor = received.indexOf(found) + 1;
      return found;
    };

    await nova.updateService(service.id, { status: 'disabled', disabled_reason: 'leasehold notification test' });
    const disabled = await update('disabled', (d) => d['disabled'] === true);
    // published in the name of the compute service even though nova-api sends it
    expect(disabled).toMatchObject({ publisher_id: `nova-compute:${host}`, payload: { 'nova_object.name': 'ServiceStatusPayload' } });
    expect(data(disabled)).toMatchObject({ binary: 'nova-compute', disabled_reason: 'leasehold notification test', forced_down: false });
    await nova.updateService(service.id, { status: 'enabled' });
    await update('enabled', (d) => d['disabled'] === false);
    await nova.updateService(service.id, { forced_down: true });
    await update('forced down', (d) => d['forced_down'] === true);
    await nova.updateService(service.id, { forced_down: false });
    await update('no longer forced down', (d) => d['forced_down'] === false && d['disabled'] === false);
  });
});
