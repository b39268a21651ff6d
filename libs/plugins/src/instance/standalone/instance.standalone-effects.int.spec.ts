import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EffectRecord } from '#domain/index.js';
import { type EffectContext, EffectFailedError } from '../../effects.port.js';
import { FREEPOOL } from '../../standalone/nova.fake.js';
import { StandaloneCloud } from '../../standalone/standalone-cloud.js';
import { StandaloneInstanceEffects, reservationResourceClass } from './instance.standalone-effects.js';
import type { FlavorInstanceReservation, SlotAllocation, VirtualInstanceReservation } from '../instance.reservation.js';

const ID = '5f0c7a2e-1b3d-4c5e-8f9a-0b1c2d3e4f5a';
const RC = 'CUSTOM_RESERVATION_5F0C7A2E_1B3D_4C5E_8F9A_0B1C2D3E4F5A';

const virtual = (overrides: Partial<VirtualInstanceReservation> = {}): VirtualInstanceReservation => ({
  id: ID,
  resourceId: 'rid-1',
  resourceType: 'virtual:instance',
  amount: 3,
  vcpus: 2,
  memoryMb: 4096,
  diskGb: 40,
  affinity: false,
  resourceProperties: '',
  allocations: [
    { hostId: '1', count: 2 },
    { hostId: '2', count: 1 },
  ],
  ...overrides,
});

const flavorBased = (overrides: Partial<FlavorInstanceReservation> = {}): FlavorInstanceReservation => ({
  ...virtual({ affinity: null, allocations: [{ hostId: '1', count: 2 }], amount: 2 }),
  resourceType: 'flavor:instance',
  sourceFlavorId: 'm1.large',
  resourceProperties: JSON.stringify({ id: 'm1.large', vcpus: 2, ram: 4096, disk: 30, 'OS-FLV-EXT-DATA:ephemeral': 10 }),
  extraSpecs: { 'hw:cpu_policy': 'dedicated', 'trait:CUSTOM_GPU': 'required' },
  ...overrides,
});

const context = (phase: EffectContext['phase']): EffectContext => ({
  idempotencyKey: `key-${phase}`,
  leaseId: 'lease-1',
  projectId: 'project-1',
  phase,
  resourceNames: { '1': 'host1', '2': 'host2', '3': 'host3' },
});

const slots = (...allocations: SlotAllocation[]): readonly SlotAllocation[] => allocations;

let dir: string;
let cloud: StandaloneCloud;
let effects: StandaloneInstanceEffects;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'instance-effects-'));
  cloud = StandaloneCloud.open({ file: join(dir, 'cloud.sqlite') });
  effects = new StandaloneInstanceEffects(cloud);
});

afterEach(() => {
  cloud.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Inventory totals of the reservation's class, by provider name. */
const totals = (): Record<string, number> =>
  Object.fromEntries(cloud.placement.providersWithInventory(RC).map(({ provider, inventory }) => [provider.name, inventory.total]));

const operations = (records: readonly EffectRecord[]): string[] => records.map((record) => record.operation);

const allAlready = (records: readonly EffectRecord[]): boolean => records.every((record) => record.already === true);

describe('StandaloneInstanceEffects: start', () => {
  it('names the resource class after the reservation as upstream does', () => {
    expect(reservationResourceClass(ID)).toBe(RC);
  });

  it('creates the group, the private flavor, the aggregate of the hosts and an inventory of their slots', async () => {
    const records = await effects.onStart(context('start'), virtual());
    const group = cloud.nova.findServerGroup('project-1', `reservation:${ID}`);
    const aggregate = cloud.nova.getAggregate(ID);
    const extraSpecs = { 'aggregate_instance_extra_specs:reservation': ID, [`resources:${RC}`]: '1', affinity_id: group?.id };
    const metadata = { reservation: ID, filter_tenant_id: 'project-1', affinity_id: group?.id, 'blazar:owner': 'project-1' };
    expect(records).toEqual([
      {
        operation: 'server_group.create',
        server_group: `reservation:${ID}`,
        server_group_id: group?.id,
        policy: 'anti-affinity',
        project_id: 'project-1',
      },
      {
        operation: 'flavor.create',
        flavor_id: ID,
        name: `reservation:${ID}`,
        vcpus: 2,
        ram: 4096,
        disk: 40,
        ephemeral: 0,
        is_public: false,
      },
      { operation: 'flavor.set_extra_specs', flavor_id: ID, extra_specs: extraSpecs },
      { operation: 'aggregate.create', aggregate: ID, aggregate_id: aggregate?.id, availability_zone: null, metadata },
      { operation: 'resource_class.create', resource_class: RC },
      { operation: 'flavor.add_access', flavor_id: ID, project_id: 'project-1' },
      { operation: 'aggregate.add_host', aggregate: ID, host: 'host1' },
      { operation: 'resource_provider.create', resource_provider: 'blazar_host1', host: 'host1' },
      { operation: 'inventory.set', resource_provider: 'blazar_host1', resource_class: RC, total: 2 },
      { operation: 'aggregate.add_host', aggregate: ID, host: 'host2' },
      { operation: 'resource_provider.create', resource_provider: 'blazar_host2', host: 'host2' },
      { operation: 'inventory.set', resource_provider: 'blazar_host2', resource_class: RC, total: 1 },
    ]);
    expect(typeof aggregate?.id).toBe('number');
    expect(group).toMatchObject({ policy: 'anti-affinity', projectId: 'project-1' });
    expect(cloud.nova.getFlavor(ID)).toMatchObject({ isPublic: false, vcpus: 2, ram: 4096, disk: 40, extraSpecs });
    expect(cloud.nova.flavorAccess(ID)).toEqual(['project-1']);
    expect(cloud.nova.membersOf(ID)).toEqual(['host1', 'host2']);
    expect(totals()).toEqual({ blazar_host1: 2, blazar_host2: 1 });
    expect(cloud.placement.getResourceProvider('blazar_host1')?.parentProviderUuid).toBe(
      cloud.placement.getResourceProvider('host1')?.uuid,
    );
    expect(cloud.placement.getInventory(cloud.placement.getResourceProvider('blazar_host1')?.uuid ?? '', RC)).toEqual({
      total: 2,
      reserved: 0,
      minUnit: 1,
      maxUnit: 1,
      stepSize: 1,
      allocationRatio: 1,
    });
  });

  it('makes an affinity group of policy affinity, and none without an affinity', async () => {
    await effects.onStart(context('start'), virtual({ affinity: true, allocations: slots({ hostId: '1', count: 3 }) }));
    expect(cloud.nova.findServerGroup('project-1', `reservation:${ID}`)?.policy).toBe('affinity');
    const other = virtual({ id: 'other', affinity: null });
    const records = await effects.onStart(context('start'), other);
    expect(operations(records)).not.toContain('server_group.create');
    expect(cloud.nova.findServerGroup('project-1', 'reservation:other')).toBeNull();
    expect(cloud.nova.getFlavor('other')?.extraSpecs).not.toHaveProperty('affinity_id');
    expect(cloud.nova.getAggregate('other')?.metadata).toEqual({
      reservation: 'other',
      filter_tenant_id: 'project-1',
      'blazar:owner': 'project-1',
    });
  });

  it("copies a flavor:instance source flavor's sizes and extra specs onto the private flavor", async () => {
    const records = await effects.onStart(context('start'), flavorBased());
    expect(operations(records)).not.toContain('server_group.create');
    expect(cloud.nova.getFlavor(ID)).toEqual({
      id: ID,
      name: `reservation:${ID}`,
      vcpus: 2,
      ram: 4096,
      disk: 30,
      ephemeral: 10,
      isPublic: false,
      extraSpecs: {
        'hw:cpu_policy': 'dedicated',
        'trait:CUSTOM_GPU': 'required',
        'aggregate_instance_extra_specs:reservation': ID,
        [`resources:${RC}`]: '1',
      },
    });
    expect(totals()).toEqual({ blazar_host1: 2 });
  });

  it('on a retried start finds every step done and creates nothing twice', async () => {
    const first = await effects.onStart(context('start'), virtual());
    const second = await effects.onStart(context('start'), virtual());
    expect(allAlready(second)).toBe(true);
    const withoutAlready = second.map(({ already: _already, ...record }) => record);
    expect(withoutAlready).toEqual(first.filter((record) => record.operation !== 'resource_provider.create'));
  });

  it('finishes a start that crashed after the group and the flavor, without a second group', async () => {
    const { group } = cloud.nova.ensureServerGroup({ name: `reservation:${ID}`, projectId: 'project-1', policy: 'anti-affinity' });
    cloud.nova.createFlavor({ id: ID, name: `reservation:${ID}`, vcpus: 2, ram: 4096, disk: 40, ephemeral: 0, isPublic: false });
    const records = await effects.onStart(context('start'), virtual());
    expect(records.slice(0, 3)).toEqual([
      expect.objectContaining({ operation: 'server_group.create', server_group_id: group.id, already: true }),
      expect.objectContaining({ operation: 'flavor.create', already: true }),
      expect.not.objectContaining({ already: true }),
    ]);
    expect(records.slice(3).some((record) => record.already === true)).toBe(false);
    expect(cloud.nova.getFlavor(ID)?.extraSpecs).toMatchObject({ affinity_id: group.id });
    expect(totals()).toEqual({ blazar_host1: 2, blazar_host2: 1 });
  });

  it('treats an unknown hostname as a transient failure and touches nothing', async () => {
    const unnamed = { ...context('start'), resourceNames: { '1': 'host1' } };
    const failure = await effects.onStart(unnamed, virtual()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(EffectFailedError);
    expect(cloud.nova.getFlavor(ID)).toBeNull();
    expect(cloud.nova.findServerGroup('project-1', `reservation:${ID}`)).toBeNull();
  });

  it('has nothing to do before the end', async () => {
    expect(await effects.beforeEnd(context('before_end'), virtual())).toEqual([]);
  });
});

describe('StandaloneInstanceEffects: update', () => {
  it('adds new hosts and raises inventory totals when the amount grows, idempotently', async () => {
    await effects.onStart(context('start'), virtual({ amount: 1, allocations: slots({ hostId: '1', count: 1 }) }));
    const grown = virtual({ amount: 4, allocations: slots({ hostId: '1', count: 2 }, { hostId: '3', count: 2 }) });
    const records = await effects.onUpdate(context('update'), grown);
    expect(records).toEqual([
      { operation: 'aggregate.add_host', aggregate: ID, host: 'host1', already: true },
      { operation: 'inventory.set', resource_provider: 'blazar_host1', resource_class: RC, total: 2 },
      { operation: 'aggregate.add_host', aggregate: ID, host: 'host3' },
      { operation: 'resource_provider.create', resource_provider: 'blazar_host3', host: 'host3' },
      { operation: 'inventory.set', resource_provider: 'blazar_host3', resource_class: RC, total: 2 },
    ]);
    expect(totals()).toEqual({ blazar_host1: 2, blazar_host3: 2 });
    expect(cloud.nova.membersOf(ID)).toEqual(['host1', 'host3']);
    const again = await effects.onUpdate(context('update'), grown);
    expect(allAlready(again)).toBe(true);
    expect(again).toHaveLength(4);
  });

  it('takes hosts no longer allocated out of the aggregate and deletes their inventory', async () => {
    await effects.onStart(context('start'), virtual());
    const moved = virtual({ allocations: slots({ hostId: '2', count: 3 }) });
    const records = await effects.onUpdate(context('update'), moved);
    expect(records).toEqual([
      { operation: 'aggregate.add_host', aggregate: ID, host: 'host2', already: true },
      { operation: 'inventory.set', resource_provider: 'blazar_host2', resource_class: RC, total: 3 },
      { operation: 'aggregate.remove_host', aggregate: ID, host: 'host1' },
      { operation: 'inventory.delete', resource_provider: 'blazar_host1', resource_class: RC },
    ]);
    expect(totals()).toEqual({ blazar_host2: 3 });
    expect(cloud.nova.membersOf(ID)).toEqual(['host2']);
  });

  it("fails (recorded, not retried) when the reservation's aggregate is gone", async () => {
    const failure = await effects.onUpdate(context('update'), virtual()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EffectFailedError);
    expect((failure as Error).message).toBe(`Aggregate ${ID} could not be found`);
  });
});

describe('StandaloneInstanceEffects: end', () => {
  it("removes access, group, flavor, aggregate, inventories and class in upstream's order", async () => {
    await effects.onStart(context('start'), virtual());
    const groupId = cloud.nova.findServerGroup('project-1', `reservation:${ID}`)?.id;
    const records = await effects.onEnd(context('end'), virtual());
    expect(records).toEqual([
      { operation: 'flavor.remove_access', flavor_id: ID, project_id: 'project-1' },
      { operation: 'servers.delete', flavor_id: ID, servers: 0 },
      { operation: 'server_group.delete', server_group: `reservation:${ID}`, server_group_id: groupId },
      { operation: 'flavor.delete', flavor_id: ID },
      { operation: 'aggregate.remove_host', aggregate: ID, host: 'host1' },
      { operation: 'aggregate.remove_host', aggregate: ID, host: 'host2' },
      { operation: 'aggregate.delete', aggregate: ID },
      { operation: 'inventory.delete', resource_provider: 'blazar_host1', resource_class: RC },
      { operation: 'inventory.delete', resource_provider: 'blazar_host2', resource_class: RC },
      { operation: 'resource_class.delete', resource_class: RC },
    ]);
    expect(cloud.nova.getFlavor(ID)).toBeNull();
    expect(cloud.nova.findServerGroup('project-1', `reservation:${ID}`)).toBeNull();
    expect(cloud.nova.getAggregate(ID)).toBeNull();
    expect(cloud.placement.resourceClassExists(RC)).toBe(false);
    expect(totals()).toEqual({});
    expect(cloud.nova.inFreepool('host1')).toBe(true);
  });

  it('on a retried end finds everything gone', async () => {
    await effects.onStart(context('start'), virtual());
    await effects.onEnd(context('end'), virtual());
    const again = await effects.onEnd(context('end'), virtual());
    expect(allAlready(again.filter((record) => record.operation !== 'servers.delete'))).toBe(true);
    expect(operations(again)).toEqual([
      'flavor.remove_access',
      'servers.delete',
      'server_group.delete',
      'flavor.delete',
      'aggregate.delete',
      'resource_class.delete',
    ]);
  });

  it('cleans up after a start that stopped half way', async () => {
    cloud.nova.ensureServerGroup({ name: `reservation:${ID}`, projectId: 'project-1', policy: 'anti-affinity' });
    cloud.nova.createFlavor({ id: ID, name: `reservation:${ID}`, vcpus: 2, ram: 4096, disk: 40, ephemeral: 0, isPublic: false });
    cloud.nova.addFlavorAccess(ID, 'project-1');
    const records = await effects.onEnd(context('end'), virtual());
    expect(records.map((record) => `${record.operation}${record.already === true ? ' (already)' : ''}`)).toEqual([
      'flavor.remove_access',
      'servers.delete',
      'server_group.delete',
      'flavor.delete',
      'aggregate.delete (already)',
      'resource_class.delete (already)',
    ]);
    expect(cloud.nova.getFlavor(ID)).toBeNull();
  });

  it("returns a host that is in another aggregate to the freepool, as upstream's pool.delete does", async () => {
    cloud.nova.ensureAggregate('maintenance', { availabilityZone: null, metadata: {} });
    cloud.nova.addHost('maintenance', 'host2');
    await effects.onStart(context('start'), virtual());
    const records = await effects.onEnd(context('end'), virtual());
    expect(records).toContainEqual({ operation: 'aggregate.add_host', aggregate: FREEPOOL, host: 'host2' });
    expect(records).not.toContainEqual(expect.objectContaining({ aggregate: FREEPOOL, host: 'host1' }));
    expect(cloud.nova.aggregatesOf('host2')).toEqual([FREEPOOL, 'maintenance']);
  });

  it('leaves another reservation on the same hosts alone', async () => {
    await effects.onStart(context('start'), virtual());
    await effects.onStart(context('start'), virtual({ id: 'other', affinity: null }));
    await effects.onEnd(context('end'), virtual());
    expect(cloud.nova.membersOf('other')).toEqual(['host1', 'host2']);
    expect(cloud.placement.providersWithInventory(reservationResourceClass('other')).map(({ inventory }) => inventory.total)).toEqual([
      2, 1,
    ]);
    expect(cloud.nova.getFlavor('other')).not.toBeNull();
  });
});
