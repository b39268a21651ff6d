import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EffectRecord } from '#domain/index.js';
import { type EffectContext, EffectFailedError } from '../../effects.port.js';
import { StandaloneCloud } from '../../standalone/standalone-cloud.js';
import { StandaloneFloatingIpEffects } from './floating-ip.standalone-effects.js';
import type { FloatingIpReservation } from '../floating-ip.reservation.js';

const NET = 'net-public';
const TAGS = ['blazar', 'reservation:res-1'];

const reservation = (addresses: readonly string[] = ['172.24.4.10', '172.24.4.11']): FloatingIpReservation => ({
  id: 'res-1',
  resourceId: 'rid-1',
  resourceType: 'virtual:floatingip',
  networkId: NET,
  amount: addresses.length,
  requiredFloatingIps: [],
  allocations: addresses.map((address, index) => ({ floatingIpId: `fip-${index}`, address })),
});

const context = (phase: EffectContext['phase']): EffectContext => ({
  idempotencyKey: `key-${phase}`,
  leaseId: 'lease-1',
  projectId: 'project-1',
  phase,
  resourceNames: {},
});

let dir: string;
let cloud: StandaloneCloud;
let effects: StandaloneFloatingIpEffects;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'floating-ip-effects-'));
  cloud = StandaloneCloud.open({ file: join(dir, 'cloud.sqlite') });
  effects = new StandaloneFloatingIpEffects(cloud);
});

afterEach(() => {
  cloud.close();
  rmSync(dir, { recursive: true, force: true });
});

const held = (): string[] => cloud.neutron.floatingIpsTagged('reservation:res-1').map((fip) => fip.floatingIpAddress);
const idOf = (address: string): string | undefined => cloud.neutron.findFloatingIp(NET, address)?.id;
const summary = (records: readonly EffectRecord[]): string[] =>
  records.map((record) => `${record.operation} ${String(record.address)}${record.already === true ? ' (already)' : ''}`);

describe('StandaloneFloatingIpEffects', () => {
  it("on start creates each address in the lease's project, tagged for the reservation", async () => {
    const records = await effects.onStart(context('start'), reservation());
    expect(records).toEqual([
      {
        operation: 'floatingip.create',
        floating_ip_id: idOf('172.24.4.10'),
        address: '172.24.4.10',
        network_id: NET,
        project_id: 'project-1',
        tags: TAGS,
      },
      {
        operation: 'floatingip.create',
        floating_ip_id: idOf('172.24.4.11'),
        address: '172.24.4.11',
        network_id: NET,
        project_id: 'project-1',
        tags: TAGS,
      },
    ]);
    expect(cloud.neutron.findFloatingIp(NET, '172.24.4.10')).toMatchObject({ projectId: 'project-1', tags: TAGS, portId: null });
    expect(held()).toEqual(['172.24.4.10', '172.24.4.11']);
  });

  it('on a retried start finds the addresses created and creates none twice', async () => {
    const first = await effects.onStart(context('start'), reservation());
    const second = await effects.onStart(context('start'), reservation());
    expect(second).toEqual(first.map((record) => ({ ...record, already: true })));
    expect(held()).toHaveLength(2);
  });

  it('finishes a start that crashed after its first address', async () => {
    cloud.neutron.ensureFloatingIp({ floatingNetworkId: NET, floatingIpAddress: '172.24.4.10', projectId: 'project-1', tags: TAGS });
    const records = await effects.onStart(context('start'), reservation());
    expect(summary(records)).toEqual(['floatingip.create 172.24.4.10 (already)', 'floatingip.create 172.24.4.11']);
    expect(held()).toEqual(['172.24.4.10', '172.24.4.11']);
  });

  it('fails the start, as an outcome, on an address someone else holds, and leaves theirs alone', async () => {
    cloud.neutron.ensureFloatingIp({ floatingNetworkId: NET, floatingIpAddress: '172.24.4.11', projectId: 'project-2', tags: [] });
    const failure = await effects.onStart(context('start'), reservation()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EffectFailedError);
    expect((failure as EffectFailedError).message).toBe(`Floating IP 172.24.4.11 is already allocated on network ${NET}`);
    expect(summary((failure as EffectFailedError).effects)).toEqual(['floatingip.create 172.24.4.10']);
    expect(cloud.neutron.findFloatingIp(NET, '172.24.4.11')?.projectId).toBe('project-2');

    const ended = await effects.onEnd(context('end'), reservation());
    expect(summary(ended)).toEqual([
      'floatingip.disassociate 172.24.4.10 (already)',
      'floatingip.delete 172.24.4.10',
      'floatingip.delete 172.24.4.11 (already)',
    ]);
    expect(cloud.neutron.findFloatingIp(NET, '172.24.4.11')?.projectId).toBe('project-2');
  });

  it('on update creates newly allocated addresses and releases those no longer allocated, idempotently', async () => {
    await effects.onStart(context('start'), reservation());
    const changed = reservation(['172.24.4.10', '172.24.4.12', '172.24.4.13']);
    const records = await effects.onUpdate(context('update'), changed);
    expect(summary(records)).toEqual([
      'floatingip.disassociate 172.24.4.11 (already)',
      'floatingip.delete 172.24.4.11',
      'floatingip.create 172.24.4.10 (already)',
      'floatingip.create 172.24.4.12',
      'floatingip.create 172.24.4.13',
    ]);
    expect(held()).toEqual(['172.24.4.10', '172.24.4.12', '172.24.4.13']);
    const again = await effects.onUpdate(context('update'), changed);
    expect(summary(again)).toEqual([
      'floatingip.create 172.24.4.10 (already)',
      'floatingip.create 172.24.4.12 (already)',
      'floatingip.create 172.24.4.13 (already)',
    ]);
  });

  it('on end disassociates and releases each address; a retry finds them gone', async () => {
    await effects.onStart(context('start'), reservation());
    const attached = idOf('172.24.4.10') ?? '';
    cloud.neutron.setPort(attached, 'port-1');
    const records = await effects.onEnd(context('end'), reservation());
    expect(records).toEqual([
      { operation: 'floatingip.disassociate', floating_ip_id: attached, address: '172.24.4.10' },
      { operation: 'floatingip.delete', floating_ip_id: attached, address: '172.24.4.10', network_id: NET },
      expect.objectContaining({ operation: 'floatingip.disassociate', address: '172.24.4.11', already: true }),
      expect.objectContaining({ operation: 'floatingip.delete', address: '172.24.4.11', network_id: NET }),
    ]);
    expect(held()).toEqual([]);
    expect(await effects.onEnd(context('end'), reservation())).toEqual([
      { operation: 'floatingip.delete', floating_ip_id: null, address: '172.24.4.10', network_id: NET, already: true },
      { operation: 'floatingip.delete', floating_ip_id: null, address: '172.24.4.11', network_id: NET, already: true },
    ]);
  });

  it('on end also releases an address an interrupted update left tagged for the reservation', async () => {
    cloud.neutron.ensureFloatingIp({ floatingNetworkId: NET, floatingIpAddress: '172.24.4.99', projectId: 'project-1', tags: TAGS });
    const records = await effects.onEnd(context('end'), reservation(['172.24.4.10']));
    expect(summary(records)).toEqual([
      'floatingip.delete 172.24.4.10 (already)',
      'floatingip.disassociate 172.24.4.99 (already)',
      'floatingip.delete 172.24.4.99',
    ]);
    expect(held()).toEqual([]);
  });

  it('has nothing to do before the end', async () => {
    expect(await effects.beforeEnd(context('before_end'), reservation())).toEqual([]);
  });
});
