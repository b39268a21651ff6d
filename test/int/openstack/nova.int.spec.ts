/**
 * Nova's hypervisors, zones, aggregates, flavors, server groups and compute services through NovaClient, against the real control plane.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  NovaClient,
  OpenStackConflictError,
  OpenStackHttpError,
  OpenStackNotFoundError,
  PlacementClient,
  ignoreNotFound,
} from '#plugins/openstack/index.js';
import { OPENSTACK_ENV_FILE, eventually, openStackEnv, sessionFor, uniqueName } from './openstack.fixtures.js';

describe.skipIf(!OPENSTACK_ENV_FILE)('NovaClient (real Nova)', () => {
  const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);
  const nova = OPENSTACK_ENV_FILE ? new NovaClient(sessionFor(env.admin)) : (undefined as never);
  const cleanups: (() => Promise<unknown>)[] = [];

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  describe('hypervisors and zones', () => {
    it('lists every fake compute with its capacity and service host', async () => {
      const hypervisors = await nova.listHypervisors();
      for (const host of env.computeHosts) {
        const hv = hypervisors.find((h) => h.hypervisor_hostname === host);
        expect(hv, host).toBeDefined();
        expect(hv).toMatchObject({ hypervisor_type: 'fake', state: 'up', service: { host } });
        expect(hv?.vcpus).toBeGreaterThan(0);
        expect(hv?.memory_mb).toBeGreaterThan(0);
        expect(hv?.local_gb).toBeGreaterThan(0);
        expect(hv?.hypervisor_version).toBeGreaterThan(0);
        expect(hv?.cpu_info).toBeDefined();
        expect(hv?.id).toMatch(/^[0-9a-f-]{36}$/);
      }
    });

    it('shows one hypervisor by id and finds one by exact hostname', async () => {
      const [host] = env.computeHosts;
      const found = await nova.findHypervisor(host ?? '');
      expect(found?.hypervisor_hostname).toBe(host);
      const shown = await nova.getHypervisor(found?.id ?? '', { withServers: true });
      expect(shown).toMatchObject({ id: found?.id, hypervisor_hostname: host, vcpus: found?.vcpus });
      expect(await nova.findHypervisor('no-such-hypervisor')).toBeNull();
      await expect(nova.getHypervisor('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(OpenStackNotFoundError);
    });

    it('lists the availability zone of the computes', async () => {
      const zones = await nova.listAvailabilityZones();
      const zone = zones.find((z) => z.zoneName === 'nova');
      expect(zone?.zoneState.available).toBe(true);
      for (const host of env.computeHosts) expect(zone?.hosts?.[host]?.['nova-compute']?.available, host).toBe(true);
    });
  });

  describe('aggregates', () => {
    it('creates, changes and deletes an aggregate, and mirrors membership into Placement', async () => {
      const name = uniqueName('lh-agg');
      const host = env.computeHosts[0] ?? '';
      const created = await nova.createAggregate(name);
      cleanups.push(async () => {
        await ignoreNotFound(nova.removeAggregateHost(created.id, host));
        await ignoreNotFound(nova.deleteAggregate(created.id));
      });
      expect(created).toMatchObject({ name, availability_zone: null, hosts: [] });
      expect(created.uuid).toMatch(/^[0-9a-f-]{36}$/);
      expect((await nova.findAggregate(name))?.id).toBe(created.id);
      await expect(nova.createAggregate(name)).rejects.toBeInstanceOf(OpenStackConflictError);

      expect((await nova.addAggregateHost(created.id, host)).hosts).toEqual([host]);
      await expect(nova.addAggregateHost(created.id, host)).rejects.toBeInstanceOf(OpenStackConflictError);
      await expect(nova.addAggregateHost(created.id, 'no-such-host')).rejects.toBeInstanceOf(OpenStackNotFoundError);
      const placement = new PlacementClient(sessionFor(env.admin));
      const root = await placement.findResourceProvider(host);
      expect((await placement.getProviderAggregates(root?.uuid ?? '')).aggregates).toContain(created.uuid);

      await nova.setAggregateMetadata(created.id, { 'blazar:owner': env.demoProjectId, filter_tenant_id: env.demoProjectId });
      const unset = await nova.setAggregateMetadata(created.id, { filter_tenant_id: null });
      expect(unset.metadata).toEqual({ 'blazar:owner': env.demoProjectId });
      const renamed = await nova.updateAggregate(created.id, { name: `${name}-renamed` });
      expect(renamed.name).toBe(`${name}-renamed`);
      expect((await nova.getAggregate(created.id)).metadata).toEqual({ 'blazar:owner': env.demoProjectId });

      const error = await nova.deleteAggregate(created.id).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenStackHttpError);
      expect(error).toMatchObject({ status: 400, code: 'OPENSTACK_BAD_REQUEST', service: 'compute' });
      expect((error as OpenStackHttpError).cloudMessage).toMatch(/not empty/i);

      expect((await nova.removeAggregateHost(created.id, host)).hosts).toEqual([]);
      await expect(nova.removeAggregateHost(created.id, host)).rejects.toBeInstanceOf(OpenStackNotFoundError);
      await eventually('placement to drop the membership', async () =>
        (await placement.getProviderAggregates(root?.uuid ?? '')).aggregates.includes(created.uuid) ? undefined : true,
      );
      await nova.deleteAggregate(created.id);
      await expect(nova.getAggregate(created.id)).rejects.toBeInstanceOf(OpenStackNotFoundError);
      expect(await ignoreNotFound(nova.deleteAggregate(created.id))).toBe(false);
      expect(await nova.findAggregate(name)).toBeNull();
    });

    it('creates an aggregate in an availability zone', async () => {
      const name = uniqueName('lh-agg-az');
      const created = await nova.createAggregate(name, `az-${name}`);
      cleanups.push(() => ignoreNotFound(nova.deleteAggregate(created.id)));
      expect(created).toMatchObject({ availability_zone: `az-${name}`, metadata: { availability_zone: `az-${name}` } });
      await nova.deleteAggregate(created.id);
    });
  });

  describe('flavors', () => {
    it('creates a private flavor with extra specs and gives one project access', async () => {
      const id = uniqueName('lh-flavor');
      const flavor = await nova.createFlavor({
        id,
        name: `reservation:${id}`,
        vcpus: 1,
        ram: 512,
        disk: 1,
        isPublic: false,
        description: 'test',
      });
      cleanups.push(() => ignoreNotFound(nova.deleteFlavor(id)));
      expect(flavor).toMatchObject({
        id,
        name: `reservation:${id}`,
        vcpus: 1,
        ram: 512,
        disk: 1,
        'os-flavor-access:is_public': false,
        extra_specs: {},
      });
      expect((await nova.listFlavors()).map((f) => f.id)).toContain(id);
      expect((await nova.listFlavors({ isPublic: true })).map((f) => f.id)).not.toContain(id);
      await expect(nova.createFlavor({ id, name: `${id}-again`, vcpus: 1, ram: 512, disk: 1, isPublic: false })).rejects.toBeInstanceOf(
        OpenStackConflictError,
      );

      const rc = `CUSTOM_RESERVATION_${id.toUpperCase().replace(/-/g, '_')}`;
      const specs = { [`resources:${rc}`]: '1', 'aggregate_instance_extra_specs:reservation': id, 'hw:cpu_policy': 'shared' };
      expect(await nova.setFlavorExtraSpecs(id, specs)).toEqual(specs);
      await nova.deleteFlavorExtraSpec(id, 'hw:cpu_policy');
      expect(await nova.getFlavorExtraSpecs(id)).toEqual({ [`resources:${rc}`]: '1', 'aggregate_instance_extra_specs:reservation': id });
      expect((await nova.getFlavor(id)).extra_specs).toEqual(await nova.getFlavorExtraSpecs(id));
      await expect(nova.deleteFlavorExtraSpec(id, 'hw:cpu_policy')).rejects.toBeInstanceOf(OpenStackNotFoundError);

      const demoNova = new NovaClient(sessionFor(env.demo));
      await expect(demoNova.getFlavor(id)).rejects.toBeInstanceOf(OpenStackNotFoundError);
      expect(await nova.listFlavorAccess(id)).toEqual([]);
      expect(await nova.addFlavorAccess(id, env.demoProjectId)).toEqual([env.demoProjectId]);
      await expect(nova.addFlavorAccess(id, env.demoProjectId)).rejects.toBeInstanceOf(OpenStackConflictError);
      expect((await demoNova.getFlavor(id)).id).toBe(id);
      expect(await nova.removeFlavorAccess(id, env.demoProjectId)).toEqual([]);
      await expect(nova.removeFlavorAccess(id, env.demoProjectId)).rejects.toBeInstanceOf(OpenStackNotFoundError);

      await nova.deleteFlavor(id);
      await expect(nova.getFlavor(id)).rejects.toBeInstanceOf(OpenStackNotFoundError);
      expect(await ignoreNotFound(nova.deleteFlavor(id))).toBe(false);
    });
  });

  describe('server groups', () => {
    it("creates a group in the member's project, lists and deletes it", async () => {
      const demoNova = new NovaClient(sessionFor(env.demo));
      const name = `reservation:${uniqueName('lh-group')}`;
      const group = await demoNova.createServerGroup(name, 'anti-affinity');
      cleanups.push(() => ignoreNotFound(nova.deleteServerGroup(group.id)));
      expect(group).toMatchObject({ name, policy: 'anti-affinity', members: [], project_id: env.demoProjectId });
      expect((await demoNova.getServerGroup(group.id)).name).toBe(name);
      expect((await demoNova.listServerGroups()).map((g) => g.id)).toContain(group.id);
      expect((await nova.listServerGroups()).map((g) => g.id)).not.toContain(group.id);
      expect((await nova.listServerGroups({ allProjects: true })).map((g) => g.id)).toContain(group.id);
      await demoNova.deleteServerGroup(group.id);
      await expect(demoNova.getServerGroup(group.id)).rejects.toBeInstanceOf(OpenStackNotFoundError);
      expect(await ignoreNotFound(demoNova.deleteServerGroup(group.id))).toBe(false);
    });
  });

  describe('compute services', () => {
    const host = env?.computeHosts.at(-1) ?? '';
    const computeService = async () => {
      const [service] = await nova.listServices({ binary: 'nova-compute', host });
      if (service === undefined) throw new Error(`no nova-compute on ${host}`);
      return service;
    };

    it('lists one nova-compute per fake host, up and enabled', async () => {
      const services = await nova.listServices({ binary: 'nova-compute' });
      expect(services.map((s) => s.host).sort()).toEqual(expect.arrayContaining([...env.computeHosts]));
      for (const s of services.filter((x) => env.computeHosts.includes(x.host))) {
        expect(s).toMatchObject({ binary: 'nova-compute', zone: 'nova', status: 'enabled', state: 'up', forced_down: false });
      }
    });

    it('disables and enables a compute service, which the hypervisor reflects', async () => {
      const service = await computeService();
      cleanups.push(() => nova.updateService(service.id, { status: 'enabled', forced_down: false }));
      const disabled = await nova.updateService(service.id, { status: 'disabled', disabled_reason: 'leasehold test' });
      expect(disabled).toMatchObject({ id: service.id, status: 'disabled', disabled_reason: 'leasehold test' });
      expect((await nova.findHypervisor(host))?.status).toBe('disabled');
      expect((await nova.updateService(service.id, { status: 'enabled' })).status).toBe('enabled');
      expect((await nova.findHypervisor(host))?.status).toBe('enabled');
    });

    it('forces a compute service down and back up', async () => {
      const service = await computeService();
      cleanups.push(() => nova.updateService(service.id, { forced_down: false }));
      expect(await nova.updateService(service.id, { forced_down: true })).toMatchObject({ forced_down: true, state: 'down' });
      expect((await nova.findHypervisor(host))?.state).toBe('down');
      expect(await nova.updateService(service.id, { forced_down: false })).toMatchObject({ forced_down: false });
      await eventually('the service to be up again', async () => ((await computeService()).state === 'up' ? true : undefined), 30_000);
    });

    it('refuses to update an unknown service', async () => {
      await expect(nova.updateService('00000000-0000-4000-8000-000000000000', { status: 'enabled' })).rejects.toBeInstanceOf(
        OpenStackNotFoundError,
      );
    });
  });
});
