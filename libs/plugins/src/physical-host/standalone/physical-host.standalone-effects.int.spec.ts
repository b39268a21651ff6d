import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EffectContext, EffectFailedError } from '../../effects.port.js';
import { StandaloneHostEffects } from './physical-host.standalone-effects.js';
import { FREEPOOL } from '../../standalone/nova.fake.js';
import { StandaloneCloud } from '../../standalone/standalone-cloud.js';
import type { HostReservation } from '../host.reservation.js';

const reservation = (overrides: Partial<HostReservation> = {}): HostReservation => ({
  id: 'res-1',
  resourceId: 'rid-1',
  resourceType: 'physical:host',
  min: 2,
  max: 2,
  hypervisorProperties: '',
  resourceProperties: '',
  beforeEnd: 'default',
  hostIds: ['1', '2'],
  ...overrides,
});

const context = (phase: EffectContext['phase']): EffectContext => ({
  idempotencyKey: `key-${phase}`,
  leaseId: 'lease-1',
  projectId: 'project-1',
  phase,
  resourceNames: { '1': 'host1', '2': 'host2' },
});

let dir: string;
let cloud: StandaloneCloud;
let effects: StandaloneHostEffects;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'standalone-cloud-'));
  cloud = StandaloneCloud.open({ file: join(dir, 'cloud.sqlite') });
  effects = new StandaloneHostEffects(cloud);
});

afterEach(() => {
  cloud.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('StandaloneHostEffects', () => {
  it('on start moves the hosts from the freepool into an aggregate named after the reservation', async () => {
    const records = await effects.onStart(context('start'), reservation());
    expect(records).toEqual([
      {
        operation: 'aggregate.create',
        aggregate: 'res-1',
        aggregate_id: 1,
        availability_zone: 'blazar_res-1',
        metadata: { 'blazar:owner': 'project-1' },
      },
      { operation: 'aggregate.remove_host', aggregate: FREEPOOL, host: 'host1' },
      { operation: 'aggregate.add_host', aggregate: 'res-1', host: 'host1' },
      { operation: 'aggregate.remove_host', aggregate: FREEPOOL, host: 'host2' },
      { operation: 'aggregate.add_host', aggregate: 'res-1', host: 'host2' },
    ]);
    expect(cloud.nova.membersOf('res-1')).toEqual(['host1', 'host2']);
    expect(cloud.nova.getAggregate('res-1')?.availabilityZone).toBe('blazar_res-1');
  });

  it('on a retried start marks the steps found done as already done', async () => {
    await effects.onStart(context('start'), reservation());
    const records = await effects.onStart(context('start'), reservation());
    expect(records.every((record) => record.already === true)).toBe(true);
    expect(cloud.nova.membersOf('res-1')).toEqual(['host1', 'host2']);
  });

  it('fails a start on a host outside the freepool and moves the hosts already moved back', async () => {
    cloud.nova.ensureAggregate('maintenance', { availabilityZone: null, metadata: {} });
    cloud.nova.addHost('maintenance', 'host2');
    const failure = await effects.onStart(context('start'), reservation()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EffectFailedError);
    expect((failure as EffectFailedError).message).toBe('Host host2 is not in the freepool');
    expect((failure as EffectFailedError).effects).toContainEqual({ operation: 'aggregate.add_host', aggregate: FREEPOOL, host: 'host1' });
    expect(cloud.nova.membersOf('res-1')).toEqual([]);
    expect(cloud.nova.aggregatesOf('host1')).toEqual([FREEPOOL]);
    expect(cloud.nova.aggregatesOf('host2')).toEqual(['maintenance']);
  });

  it('before end snapshots only for the snapshot action (the default action does nothing upstream)', async () => {
    expect(await effects.beforeEnd(context('before_end'), reservation())).toEqual([]);
    expect(await effects.beforeEnd(context('before_end'), reservation({ beforeEnd: '' }))).toEqual([]);
    expect(await effects.beforeEnd(context('before_end'), reservation({ beforeEnd: 'snapshot' }))).toEqual([
      { operation: 'servers.snapshot', host: 'host1', servers: 0 },
      { operation: 'servers.snapshot', host: 'host2', servers: 0 },
    ]);
    const snapshotByDefault = new StandaloneHostEffects(cloud, { defaultBeforeEnd: 'snapshot' });
    expect(await snapshotByDefault.beforeEnd(context('before_end'), reservation())).toHaveLength(2);
  });

  it('converges a started reservation: a clean check only finds steps already done, drift is put back', async () => {
    await effects.onStart(context('start'), reservation());
    const clean = await effects.onUpdate(context('update'), reservation());
    expect(clean.length).toBeGreaterThan(0);
    expect(clean.every((record) => record.already === true)).toBe(true);
    // drift: someone moved host2 back to the freepool behind the ledger's back
    cloud.nova.removeHost('res-1', 'host2');
    cloud.nova.addHost(FREEPOOL, 'host2');
    const repaired = await effects.onUpdate(context('update'), reservation());
    expect(repaired.filter((record) => record.already !== true)).toEqual([
      { operation: 'aggregate.remove_host', aggregate: FREEPOOL, host: 'host2' },
      { operation: 'aggregate.add_host', aggregate: 'res-1', host: 'host2' },
    ]);
    expect(cloud.nova.membersOf('res-1')).toEqual(['host1', 'host2']);
  });

  it('on an update after healing, the replacement joins the aggregate and the replaced host goes back to the freepool', async () => {
    await effects.onStart(context('start'), reservation());
    const healed = { ...context('update'), resourceNames: { '1': 'host1', '2': 'host2', '3': 'host3' } };
    const records = await effects.onUpdate(healed, reservation({ hostIds: ['3', '2'] }));
    expect(records.filter((record) => record.already !== true)).toEqual([
      { operation: 'aggregate.remove_host', aggregate: FREEPOOL, host: 'host3' },
      { operation: 'aggregate.add_host', aggregate: 'res-1', host: 'host3' },
      { operation: 'servers.delete', host: 'host1', servers: 0 },
      { operation: 'aggregate.remove_host', aggregate: 'res-1', host: 'host1' },
      { operation: 'aggregate.add_host', aggregate: FREEPOOL, host: 'host1' },
    ]);
    expect(cloud.nova.membersOf('res-1')).toEqual(['host2', 'host3']);
    expect(cloud.nova.inFreepool('host1')).toBe(true);
    const again = await effects.onUpdate(healed, reservation({ hostIds: ['3', '2'] }));
    expect(again.every((record) => record.already === true)).toBe(true);
  });

  it('on end returns the hosts to the freepool and deletes the aggregate, idempotently', async () => {
    await effects.onStart(context('start'), reservation());
    const records = await effects.onEnd(context('end'), reservation());
    expect(records).toEqual([
      { operation: 'servers.delete', host: 'host1', servers: 0 },
      { operation: 'aggregate.remove_host', aggregate: 'res-1', host: 'host1' },
      { operation: 'aggregate.add_host', aggregate: FREEPOOL, host: 'host1' },
      { operation: 'servers.delete', host: 'host2', servers: 0 },
      { operation: 'aggregate.remove_host', aggregate: 'res-1', host: 'host2' },
      { operation: 'aggregate.add_host', aggregate: FREEPOOL, host: 'host2' },
      { operation: 'aggregate.delete', aggregate: 'res-1' },
    ]);
    expect(cloud.nova.membersOf(FREEPOOL)).toEqual(['host1', 'host2']);
    expect(await effects.onEnd(context('end'), reservation())).toEqual([
      { operation: 'aggregate.delete', aggregate: 'res-1', already: true },
    ]);
  });

  it('treats an unknown hostname as a transient failure, not an outcome', async () => {
    const unnamed = { ...context('start'), resourceNames: { '1': 'host1' } };
    const failure = await effects.onStart(unnamed, reservation()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(EffectFailedError);
    expect(cloud.nova.getAggregate('res-1')).toBeNull();
  });
});
