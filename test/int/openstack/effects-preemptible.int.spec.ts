/**
 * The reaper's crash-replay on the real Nova: a server that an interrupted attempt of one effect had
 * marked and deleted (so Nova no longer lists it among live servers) is still recorded by the rerun
 * under the same idempotency key, and by no other effect. The reaping itself is proven end to end in
 * system-preemptible.int.spec.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapMarker, reapPreemptibles } from '#plugins/openstack/effects/preemptible.openstack-effects.js';
import { NovaClient, type Server, ignoreNotFound } from '#plugins/openstack/index.js';
import { OPENSTACK_ENV_FILE, eventually, openStackEnv, serverGone, sessionFor, uniqueName } from './openstack.fixtures.js';

const OPTIONS = { graceMs: 5_000, pollMs: 200, deletion: { timeoutMs: 60_000, pollMs: 200 } };

describe.skipIf(!OPENSTACK_ENV_FILE)('reaping preemptible servers: a rerun records what an interrupted attempt deleted', () => {
  const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);
  const nova = OPENSTACK_ENV_FILE ? new NovaClient(sessionFor(env.admin)) : (undefined as never);
  const key = `${uniqueName('begin')}:res-1`;
  let server: Server;

  beforeAll(async () => {
    const { id } = await nova.createServer({
      name: uniqueName('lh-reap'),
      imageRef: env.imageId,
      flavorRef: env.flavorId,
      networks: 'none',
    });
    server = await eventually(
      'the server ACTIVE',
      async () => {
        const found = await nova.getServer(id);
        return found.status === 'ACTIVE' ? found : undefined;
      },
      60_000,
    );
    // what the interrupted attempt did: marked, stopped, marked stopped, deleted; then it crashed before recording
    await nova.setServerDescription(id, reapMarker(key));
    await nova.stopServer(id);
    await eventually('the server SHUTOFF', async () => ((await nova.getServer(id)).status === 'SHUTOFF' ? true : undefined), 30_000);
    await nova.setServerDescription(id, `${reapMarker(key)} stopped`);
    await nova.deleteServer(id);
    await eventually('the server gone', async () => ((await serverGone(nova, id)) ? true : undefined), 60_000);
  }, 120_000);

  afterAll(async () => {
    if (server !== undefined) await ignoreNotFound(nova.deleteServer(server.id)).catch(() => undefined);
  });

  const host = (): { hostId: string; hypervisor: string; service: string } => {
    const name = server['OS-EXT-SRV-ATTR:host'] ?? '';
    return { hostId: '7', hypervisor: name, service: name };
  };

  it('the rerun under the same key records the deleted server, stopped first', async () => {
    expect(await reapPreemptibles(nova, [host()], OPTIONS, key)).toEqual([
      {
        operation: 'preemptible.reap',
        host_id: '7',
        host: host().service,
        server_id: server.id,
        project_id: server.tenant_id,
        flavor: server.flavor.original_name,
        stopped: true,
      },
    ]);
  });

  it('another effect (another key) does not claim it', async () => {
    const records = await reapPreemptibles(nova, [host()], OPTIONS, `${uniqueName('begin')}:res-1`);
    expect(records.map((r) => r.server_id)).not.toContain(server.id);
  });
});
