import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FREEPOOL } from './nova.fake.js';
import type { Inventory } from './placement.fake.js';
import { StandaloneCloud } from './standalone-cloud.js';

let dir: string;
let file: string;
let cloud: StandaloneCloud;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'standalone-cloud-'));
  file = join(dir, 'cloud.sqlite');
  cloud = StandaloneCloud.open({ file });
});

afterEach(() => {
  cloud.close();
  rmSync(dir, { recursive: true, force: true });
});

const inventory = (total: number): Inventory => ({ total, reserved: 0, minUnit: 1, maxUnit: 1, stepSize: 1, allocationRatio: 1 });

describe('StandaloneCloud: fake Nova aggregates', () => {
  it('makes every operation idempotent and reports whether it changed anything', () => {
    const { nova } = cloud;
    expect(nova.ensureAggregate('a', { availabilityZone: 'az', metadata: { k: 'v' } })).toBe(true);
    expect(nova.ensureAggregate('a', { availabilityZone: 'other', metadata: {} })).toBe(false);
    expect(nova.getAggregate('a')).toEqual({ id: 1, name: 'a', availabilityZone: 'az', metadata: { k: 'v' } });
    expect(nova.addHost('a', 'h')).toBe(true);
    expect(nova.addHost('a', 'h')).toBe(false);
    expect(nova.membersOf('a')).toEqual(['h']);
    expect(nova.aggregatesOf('h')).toEqual(['a']);
    expect(() => nova.deleteAggregate('a')).toThrow(/still has hosts/);
    expect(nova.removeHost('a', 'h')).toBe(true);
    expect(nova.removeHost('a', 'h')).toBe(false);
    expect(nova.deleteAggregate('a')).toBe(true);
    expect(nova.deleteAggregate('a')).toBe(false);
  });

  it('never reuses an aggregate id, like Nova', () => {
    cloud.nova.ensureAggregate('a', { availabilityZone: null, metadata: {} });
    cloud.nova.deleteAggregate('a');
    cloud.nova.ensureAggregate('a', { availabilityZone: null, metadata: {} });
    expect(cloud.nova.getAggregate('a')?.id).toBe(2);
  });

  it('counts hosts in no aggregate as free and creates the freepool on first use', () => {
    expect(cloud.nova.inFreepool('h')).toBe(true);
    expect(cloud.nova.getAggregate(FREEPOOL)).toBeNull();
    cloud.nova.addHost(FREEPOOL, 'h');
    expect(cloud.nova.getAggregate(FREEPOOL)).not.toBeNull();
    expect(() => cloud.nova.addHost('missing', 'h')).toThrow(/could not be found/);
  });

  it('is shared by every connection to the same file', () => {
    const other = StandaloneCloud.open({ file });
    cloud.nova.ensureAggregate('shared', { availabilityZone: null, metadata: {} });
    expect(other.nova.getAggregate('shared')?.name).toBe('shared');
    other.close();
  });

  it('gives the aggregates of a file written before aggregate ids their ids, keeping hosts and metadata', () => {
    cloud.close();
    rmSync(file);
    const old = new Database(file);
    old.exec(`CREATE TABLE aggregates (name TEXT PRIMARY KEY, availability_zone TEXT, metadata TEXT NOT NULL);
      CREATE TABLE aggregate_hosts (aggregate TEXT NOT NULL REFERENCES aggregates (name), host TEXT NOT NULL, PRIMARY KEY (aggregate, host));
      INSERT INTO aggregates VALUES ('freepool', NULL, '{}'), ('r1', 'blazar_r1', '{"blazar:owner":"p"}');
      INSERT INTO aggregate_hosts VALUES ('r1', 'h1');`);
    old.close();
    cloud = StandaloneCloud.open({ file });
    expect(cloud.nova.getAggregate('r1')).toEqual({ id: 2, name: 'r1', availabilityZone: 'blazar_r1', metadata: { 'blazar:owner': 'p' } });
    expect(cloud.nova.membersOf('r1')).toEqual(['h1']);
    cloud.nova.ensureAggregate('r2', { availabilityZone: null, metadata: {} });
    expect(cloud.nova.getAggregate('r2')?.id).toBe(3);
  });
});

describe('StandaloneCloud: fake Nova flavors and server groups', () => {
  const spec = { id: 'f1', name: 'reservation:f1', vcpus: 2, ram: 2048, disk: 20, ephemeral: 0, isPublic: false };

  it('creates a flavor once, merges extra specs, and grants and revokes project access', () => {
    const { nova } = cloud;
    expect(nova.createFlavor(spec)).toBe(true);
    expect(nova.createFlavor(spec)).toBe(false);
    expect(nova.setFlavorExtraSpecs('f1', { a: '1' })).toBe(true);
    expect(nova.setFlavorExtraSpecs('f1', { a: '1' })).toBe(false);
    expect(nova.setFlavorExtraSpecs('f1', { b: '2' })).toBe(true);
    expect(nova.getFlavor('f1')).toEqual({ ...spec, extraSpecs: { a: '1', b: '2' } });
    expect(nova.addFlavorAccess('f1', 'p1')).toBe(true);
    expect(nova.addFlavorAccess('f1', 'p1')).toBe(false);
    expect(nova.flavorAccess('f1')).toEqual(['p1']);
    expect(nova.removeFlavorAccess('f1', 'p1')).toBe(true);
    expect(nova.removeFlavorAccess('f1', 'p1')).toBe(false);
    expect(nova.deleteFlavor('f1')).toBe(true);
    expect(nova.deleteFlavor('f1')).toBe(false);
    expect(() => nova.setFlavorExtraSpecs('f1', { a: '1' })).toThrow(/could not be found/);
    expect(() => nova.addFlavorAccess('f1', 'p1')).toThrow(/could not be found/);
  });

  it('refuses access to a public flavor and a second flavor of the same name, as Nova does', () => {
    cloud.nova.createFlavor({ ...spec, isPublic: true });
    expect(() => cloud.nova.addFlavorAccess('f1', 'p1')).toThrow(/public flavor/);
    expect(() => cloud.nova.createFlavor({ ...spec, id: 'f2' })).toThrow(/UNIQUE/);
  });

  it("finds a project's server group by name before creating one", () => {
    const { nova } = cloud;
    const first = nova.ensureServerGroup({ name: 'g', projectId: 'p1', policy: 'affinity' });
    const again = nova.ensureServerGroup({ name: 'g', projectId: 'p1', policy: 'affinity' });
    const otherProject = nova.ensureServerGroup({ name: 'g', projectId: 'p2', policy: 'anti-affinity' });
    expect(first.created).toBe(true);
    expect(again).toEqual({ group: first.group, created: false });
    expect(otherProject.created).toBe(true);
    expect(first.group.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(nova.findServerGroup('p1', 'g')).toEqual({ id: first.group.id, name: 'g', projectId: 'p1', policy: 'affinity' });
    expect(nova.deleteServerGroup(first.group.id)).toBe(true);
    expect(nova.deleteServerGroup(first.group.id)).toBe(false);
    expect(nova.findServerGroup('p1', 'g')).toBeNull();
  });
});

describe('StandaloneCloud: fake Placement', () => {
  it('creates providers once, and keeps inventories of known classes only', () => {
    const { placement } = cloud;
    const compute = placement.computeNodeProvider('host1');
    expect(placement.computeNodeProvider('host1')).toEqual(compute);
    const child = placement.ensureResourceProvider('blazar_host1', compute.uuid);
    expect(child.created).toBe(true);
    expect(placement.ensureResourceProvider('blazar_host1', compute.uuid)).toEqual({ provider: child.provider, created: false });
    expect(child.provider.parentProviderUuid).toBe(compute.uuid);

    expect(() => placement.setInventory(child.provider.uuid, 'CUSTOM_X', inventory(2))).toThrow(/No such resource class/);
    expect(placement.ensureResourceClass('CUSTOM_X')).toBe(true);
    expect(placement.ensureResourceClass('CUSTOM_X')).toBe(false);
    expect(() => placement.setInventory('nope', 'CUSTOM_X', inventory(2))).toThrow(/No resource provider/);
    expect(placement.setInventory(child.provider.uuid, 'CUSTOM_X', inventory(2))).toBe(true);
    expect(placement.setInventory(child.provider.uuid, 'CUSTOM_X', inventory(2))).toBe(false);
    expect(placement.setInventory(child.provider.uuid, 'CUSTOM_X', inventory(3))).toBe(true);
    expect(placement.getInventory(child.provider.uuid, 'CUSTOM_X')).toEqual(inventory(3));
    expect(placement.providersWithInventory('CUSTOM_X')).toEqual([{ provider: child.provider, inventory: inventory(3) }]);

    expect(() => placement.deleteResourceClass('CUSTOM_X')).toThrow(/in use/);
    expect(placement.deleteInventory(child.provider.uuid, 'CUSTOM_X')).toBe(true);
    expect(placement.deleteInventory(child.provider.uuid, 'CUSTOM_X')).toBe(false);
    expect(placement.deleteResourceClass('CUSTOM_X')).toBe(true);
    expect(placement.deleteResourceClass('CUSTOM_X')).toBe(false);
  });
});

describe('StandaloneCloud: fake Neutron floating IPs', () => {
  const spec = { floatingNetworkId: 'net1', floatingIpAddress: '172.24.4.10', projectId: 'p1', tags: ['blazar', 'reservation:r1'] };

  it('allocates an address once per network and finds it by address or tag', () => {
    const { neutron } = cloud;
    const created = neutron.ensureFloatingIp(spec);
    expect(created.created).toBe(true);
    expect(created.floatingIp).toMatchObject({ ...spec, portId: null });
    expect(neutron.ensureFloatingIp({ ...spec, projectId: 'p2', tags: [] })).toEqual({ floatingIp: created.floatingIp, created: false });
    expect(neutron.ensureFloatingIp({ ...spec, floatingNetworkId: 'net2' }).created).toBe(true);
    expect(neutron.findFloatingIp('net1', '172.24.4.10')).toEqual(created.floatingIp);
    expect(neutron.floatingIpsTagged('reservation:r1').map((fip) => fip.floatingNetworkId)).toEqual(['net1', 'net2']);
    expect(neutron.floatingIpsTagged('reservation:r')).toEqual([]);
  });

  it('associates and disassociates a port, and deletes once', () => {
    const { neutron } = cloud;
    const { id } = neutron.ensureFloatingIp(spec).floatingIp;
    expect(neutron.setPort(id, 'port-1')).toBe(true);
    expect(neutron.setPort(id, 'port-1')).toBe(false);
    expect(neutron.setPort(id, null)).toBe(true);
    expect(neutron.setPort(id, null)).toBe(false);
    expect(neutron.deleteFloatingIp(id)).toBe(true);
    expect(neutron.deleteFloatingIp(id)).toBe(false);
    expect(neutron.findFloatingIp('net1', '172.24.4.10')).toBeNull();
  });
});

describe('StandaloneCloud: one transaction per adapter call', () => {
  it('runs the steps of a call (transactions of their own inside) and commits them once it returns', async () => {
    const other = StandaloneCloud.open({ file });
    const members = await cloud.atomically(async () => {
      cloud.nova.ensureAggregate('r1', { availabilityZone: null, metadata: {} });
      cloud.nova.addHost('r1', 'h1');
      return cloud.nova.membersOf('r1');
    });
    expect(members).toEqual(['h1']);
    expect(other.nova.membersOf('r1')).toEqual(['h1']);
    other.close();
  });

  it("keeps the steps done before a step failed: the failure is the call's outcome, recorded with them", async () => {
    const failed = cloud.atomically(async () => {
      cloud.nova.ensureAggregate('r1', { availabilityZone: null, metadata: {} });
      cloud.nova.addHost('missing', 'h1');
    });
    await expect(failed).rejects.toThrow(/Aggregate missing could not be found/);
    const other = StandaloneCloud.open({ file });
    expect(other.nova.getAggregate('r1')?.name).toBe('r1');
    other.close();
  });
});
