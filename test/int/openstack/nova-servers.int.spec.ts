/** Servers through NovaClient against the real Nova (fake driver): boot on a host, list by host and flavor, snapshot, delete. */
import { afterAll, describe, expect, it } from 'vitest';
import { NovaClient, OpenStackNotFoundError, ignoreNotFound, isNotFound } from '#plugins/openstack/index.js';
import { OPENSTACK_ENV_FILE, eventually, openStackEnv, sessionFor, uniqueName } from './openstack.fixtures.js';

describe.skipIf(!OPENSTACK_ENV_FILE)('NovaClient servers (real Nova, fake driver)', () => {
  const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);
  const session = OPENSTACK_ENV_FILE ? sessionFor(env.admin) : (undefined as never);
  const nova = OPENSTACK_ENV_FILE ? new NovaClient(session) : (undefined as never);
  const flavorId = uniqueName('lh-srv-flavor');
  const host = env?.computeHosts[0] ?? '';
  let serverId = '';
  let imageId = '';

  afterAll(async () => {
    if (serverId !== '') await ignoreNotFound(nova.deleteServer(serverId)).catch(() => undefined);
    if (imageId !== '') await ignoreNotFound(session.request('image', 'DELETE', `/v2/images/${imageId}`)).catch(() => undefined);
    await ignoreNotFound(nova.deleteFlavor(flavorId)).catch(() => undefined);
  });

  it('boots a server on a given host and finds it by host and by flavor', { timeout: 120_000 }, async () => {
    await nova.createFlavor({ id: flavorId, name: flavorId, vcpus: 1, ram: 256, disk: 1, isPublic: true });
    const name = uniqueName('lh-server');
    serverId = (
      await nova.createServer({ name, imageRef: env.imageId, flavorRef: flavorId, networks: 'none', availabilityZone: `nova:${host}` })
    ).id;
    const server = await eventually(
      'the server to leave BUILD',
      async () => {
        const s = await nova.getServer(serverId);
        return s.status === 'BUILD' ? undefined : s;
      },
      90_000,
    );
    expect(server).toMatchObject({
      id: serverId,
      name,
      status: 'ACTIVE',
      'OS-EXT-SRV-ATTR:host': host,
      flavor: { original_name: flavorId, vcpus: 1, ram: 256 },
    });

    expect((await nova.listServers({ host })).map((s) => s.id)).toContain(serverId);
    expect((await nova.listServers({ flavor: flavorId })).map((s) => s.id)).toEqual([serverId]);
    expect((await nova.listServers({ name })).map((s) => s.id)).toEqual([serverId]);
    expect((await nova.listServers({ host: env.computeHosts[1] ?? '' })).map((s) => s.id)).not.toContain(serverId);
    const hypervisor = await nova.findHypervisor(host);
    expect((await nova.getHypervisor(hypervisor?.id ?? '', { withServers: true })).servers?.map((s) => s.uuid)).toContain(serverId);
  });

  it('snapshots the server into a Glance image', { timeout: 60_000 }, async () => {
    imageId = await nova.createServerImage(serverId, `reserved_${serverId}`, { leasehold_test: 'true' });
    expect(imageId).toMatch(/^[0-9a-f-]{36}$/);
    // the fake driver never uploads the data: the image stays queued, but it exists with our name and metadata
    const image = (
      await session.request<{ name: string; status: string; leasehold_test?: string }>('image', 'GET', `/v2/images/${imageId}`)
    ).body;
    expect(image).toMatchObject({ name: `reserved_${serverId}`, leasehold_test: 'true' });
    await session.request('image', 'DELETE', `/v2/images/${imageId}`);
    const gone = await session.request('image', 'GET', `/v2/images/${imageId}`).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(OpenStackNotFoundError);
    expect((gone as OpenStackNotFoundError).cloudMessage).toBe(`No image found with ID ${imageId}`);
  });

  it('deletes the server; deleting it again is a not-found', { timeout: 90_000 }, async () => {
    await nova.deleteServer(serverId);
    await eventually(
      'the server to be gone',
      async () => {
        try {
          await nova.getServer(serverId);
          return undefined;
        } catch (error) {
          if (isNotFound(error)) return true;
          throw error;
        }
      },
      60_000,
    );
    expect(await nova.listServers({ flavor: flavorId })).toEqual([]);
    await expect(nova.deleteServer(serverId)).rejects.toBeInstanceOf(OpenStackNotFoundError);
    await nova.deleteFlavor(flavorId);
  });
});
