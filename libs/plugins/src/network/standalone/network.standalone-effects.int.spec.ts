import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EffectContext, EffectFailedError } from '../../effects.port.js';
import { StandaloneCloud } from '../../standalone/standalone-cloud.js';
import type { NetworkAllocation, NetworkReservation } from '../network.reservation.js';
import { StandaloneNetworkEffects } from './network.standalone-effects.js';

const VLAN_150: NetworkAllocation = { networkId: 'segment-150', networkType: 'vlan', physicalNetwork: 'physnet1', segmentId: 150 };
const TAGS = ['blazar', 'reservation:res-1'];

const reservation = (id = 'res-1', allocation: NetworkAllocation = VLAN_150): NetworkReservation => ({
  id,
  resourceId: `rid-${id}`,
  resourceType: 'network',
  networkName: `net-${id}`,
  networkDescription: '',
  networkProperties: '',
  resourceProperties: '',
  beforeEnd: '',
  allocations: [allocation],
});

const context = (phase: EffectContext['phase'], projectId = 'project-1'): EffectContext => ({
  idempotencyKey: `key-${phase}`,
  leaseId: 'lease-1',
  projectId,
  phase,
  resourceNames: {},
});

let dir: string;
let cloud: StandaloneCloud;
let effects: StandaloneNetworkEffects;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'network-effects-'));
  cloud = StandaloneCloud.open({ file: join(dir, 'cloud.sqlite') });
  effects = new StandaloneNetworkEffects(cloud);
});

afterEach(() => {
  cloud.close();
  rmSync(dir, { recursive: true, force: true });
});

const onSegment = (allocation: NetworkAllocation = VLAN_150) => cloud.neutron.networkOnSegment(allocation);
const created = (id: string, name = 'net-res-1') => ({
  operation: 'network.create',
  network_id: id,
  name,
  project_id: 'project-1',
  network_type: 'vlan',
  physical_network: 'physnet1',
  segment_id: 150,
});
const foreignNetwork = (projectId: string, tags: readonly string[]) =>
  cloud.neutron.ensureNetwork({ name: 'theirs', projectId, tags, networkType: 'vlan', physicalNetwork: 'physnet1', segmentId: 150 })
    .network;

describe('StandaloneNetworkEffects', () => {
  it("on start creates the network on the segment in the lease's project, tagged for the reservation", async () => {
    const records = await effects.onStart(context('start'), reservation());
    const network = onSegment();
    expect(records).toEqual([created(network?.id ?? '')]);
    expect(network).toMatchObject({ name: 'net-res-1', projectId: 'project-1', tags: TAGS, networkType: 'vlan', segmentId: 150 });
  });

  it('on a retried start or an update finds the network made and creates none twice', async () => {
    const [first] = await effects.onStart(context('start'), reservation());
    expect(await effects.onStart(context('start'), reservation())).toEqual([{ ...first, already: true }]);
    expect(await effects.onUpdate(context('update'), reservation())).toEqual([{ ...first, already: true }]);
    expect(cloud.neutron.networksTagged('reservation:res-1')).toHaveLength(1);
  });

  it('fails the start, as an outcome, on a network of another project on the segment, and leaves it alone at end', async () => {
    const theirs = foreignNetwork('project-2', []);
    const failure = await effects.onStart(context('start'), reservation()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EffectFailedError);
    expect((failure as EffectFailedError).message).toBe(
      `Network segment vlan physnet1 150 is used by Neutron network ${theirs.id} of project project-2`,
    );
    expect(await effects.leftovers(context('end'), reservation())).toEqual([]);
    expect(await effects.onEnd(context('end'), reservation())).toEqual([
      { operation: 'network.delete', network_id: null, network_type: 'vlan', physical_network: 'physnet1', segment_id: 150, already: true },
    ]);
    expect(onSegment()?.id).toBe(theirs.id);
  });

  it("leaves the segment's previous reservation's network alone, even in the same project, when its end has not run yet", async () => {
    const previous = foreignNetwork('project-1', ['blazar', 'reservation:res-0']);
    const failure = await effects.onStart(context('start'), reservation()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EffectFailedError);
    await effects.onEnd(context('end'), reservation());
    expect(onSegment()?.id).toBe(previous.id);
  });

  it('on end deletes the network, a retry finds it gone, and the segment takes the next network', async () => {
    await effects.onStart(context('start'), reservation());
    const id = onSegment()?.id ?? '';
    expect(await effects.leftovers(context('end'), reservation())).toEqual([{ reservationId: 'res-1', kind: 'network', id }]);
    expect(await effects.onEnd(context('end'), reservation())).toEqual([
      { operation: 'network.delete', network_id: id, name: 'net-res-1', project_id: 'project-1' },
    ]);
    expect(onSegment()).toBeNull();
    expect(await effects.leftovers(context('end'), reservation())).toEqual([]);
    expect(await effects.onEnd(context('end'), reservation())).toEqual([
      { operation: 'network.delete', network_id: null, network_type: 'vlan', physical_network: 'physnet1', segment_id: 150, already: true },
    ]);
    const [next] = await effects.onStart(context('start'), reservation('res-2'));
    expect(next).toEqual(created(onSegment()?.id ?? '', 'net-res-2'));
  });

  it("on end also deletes an untagged network in the lease's project on the segment (a start that crashed before tagging)", async () => {
    const orphan = foreignNetwork('project-1', []);
    expect(await effects.onEnd(context('end'), reservation())).toEqual([
      { operation: 'network.delete', network_id: orphan.id, name: 'theirs', project_id: 'project-1' },
    ]);
    expect(onSegment()).toBeNull();
  });

  it('keeps segments apart by all three attributes: a flat segment has no id, another VLAN is another segment', async () => {
    const flat: NetworkAllocation = { networkId: 'segment-flat', networkType: 'flat', physicalNetwork: 'physnet1', segmentId: null };
    const vlan151: NetworkAllocation = { ...VLAN_150, networkId: 'segment-151', segmentId: 151 };
    await effects.onStart(context('start'), reservation('res-1'));
    await effects.onStart(context('start'), reservation('res-2', flat));
    await effects.onStart(context('start'), reservation('res-3', vlan151));
    expect([onSegment()?.name, onSegment(flat)?.name, onSegment(vlan151)?.name]).toEqual(['net-res-1', 'net-res-2', 'net-res-3']);
    await effects.onEnd(context('end'), reservation('res-2', flat));
    expect([onSegment()?.name, onSegment(flat), onSegment(vlan151)?.name]).toEqual(['net-res-1', null, 'net-res-3']);
  });

  it('has nothing to do before the end', async () => {
    expect(await effects.beforeEnd(context('before_end'), reservation())).toEqual([]);
  });
});
