/**
 * virtual:floatingip effects against the real Neutron: the reserved addresses exist in the lease's
 * project exactly during the lease, a start that crashed between create and tagging is finished, a
 * retry doubles nothing, and Neutron's refusals become recorded outcomes with Neutron's message.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { type EffectContext, EffectFailedError } from '#plugins/effects.port.js';
import { openStackClients } from '#plugins/openstack/effects/index.js';
import { OpenStackFloatingIpEffects, floatingIpReservationTag } from '#plugins/floating-ip/openstack/floating-ip.openstack-effects.js';
import { NeutronClient, ignoreNotFound } from '#plugins/openstack/index.js';
import type { FloatingIpReservation } from '#plugins/floating-ip/floating-ip.reservation.js';
import { OPENSTACK_ENV_FILE, openStackEnv, sessionFor } from './openstack.fixtures.js';

const on = Boolean(OPENSTACK_ENV_FILE);

describe.skipIf(!on)('OpenStackFloatingIpEffects (real Neutron)', () => {
  const env = on ? openStackEnv() : (undefined as never);
  const neutron = on ? new NeutronClient(sessionFor(env.admin)) : (undefined as never);
  const effects = on ? new OpenStackFloatingIpEffects(openStackClients(sessionFor(env.service))) : (undefined as never);
  const reservationId = randomUUID();
  const tag = floatingIpReservationTag(reservationId);
  const prefix = on ? env.publicSubnetCidr.split('.').slice(0, 3).join('.') : '';
  const allocated: string[] = [];
  const reservation = (addresses: readonly string[], id = reservationId): FloatingIpReservation => ({
    id,
    resourceId: randomUUID(),
    resourceType: 'virtual:floatingip',
    networkId: env.publicNetworkId,
    amount: addresses.length,
    requiredFloatingIps: [],
    allocations: addresses.map((address, n) => ({ floatingIpId: `fip-${n}`, address })),
  });
  const context = (phase: EffectContext['phase'], id = reservationId): EffectContext => ({
    idempotencyKey: `${id}:${phase}`,
    leaseId: `lease-${id}`,
    projectId: env.demoProjectId,
    phase,
    resourceNames: {},
  });
  const at = async (address: string) => neutron.listFloatingIps({ floating_network_id: env.publicNetworkId, floating_ip_address: address });
  /** Addresses in the subnet, outside its pool (.100-.200), that nobody holds now; random so that parallel runs rarely meet. */
  const freeAddresses = async (count: number): Promise<string[]> => {
    const taken = new Set((await neutron.listFloatingIps({ floating_network_id: env.publicNetworkId })).map((f) => f.floating_ip_address));
    const candidates = Array.from({ length: 97 }, (_, n) => `${prefix}.${n + 2}`).filter((a) => !taken.has(a));
    const picked = candidates.sort(() => Math.random() - 0.5).slice(0, count);
    allocated.push(...picked);
    return picked;
  };

  afterAll(async () => {
    for (const address of allocated) {
      for (const fip of await at(address).catch(() => [])) {
        if (fip.description.startsWith('reservation:') || fip.tags.some((t) => t.startsWith('reservation:'))) {
          await ignoreNotFound(neutron.deleteFloatingIp(fip.id)).catch(() => undefined);
        }
      }
    }
  });

  it(
    'creates the addresses in the project, finishes a crashed start, and exists exactly during the lease',
    { timeout: 60_000 },
    async () => {
      const [first = '', second = ''] = await freeAddresses(2);
      const held = reservation([first, second]);
      // a crash right after Neutron created the second address, before it was tagged
      const orphan = await neutron.createFloatingIp({
        floating_network_id: env.publicNetworkId,
        floating_ip_address: second,
        project_id: env.demoProjectId,
        description: tag,
      });

      const records = await effects.onStart(context('start'), held);
      expect(records).toEqual([
        {
          operation: 'floatingip.create',
          floating_ip_id: expect.any(String) as string,
          address: first,
          network_id: env.publicNetworkId,
          project_id: env.demoProjectId,
          tags: ['blazar', tag],
        },
        {
          operation: 'floatingip.create',
          floating_ip_id: orphan.id,
          address: second,
          network_id: env.publicNetworkId,
          project_id: env.demoProjectId,
          tags: ['blazar', tag],
          already: true,
        },
      ]);
      for (const address of [first, second]) {
        const found = await at(address);
        expect(found).toHaveLength(1);
        expect(found[0]).toMatchObject({ project_id: env.demoProjectId, floating_ip_address: address });
        expect([...(found[0]?.tags ?? [])].sort()).toEqual(['blazar', tag].sort());
      }
      const again = await effects.onStart(context('start'), held);
      expect(again.every((record) => record.already === true)).toBe(true);
      expect((await neutron.listFloatingIps({ tags: [tag] })).map((f) => f.floating_ip_address).sort()).toEqual([first, second].sort());

      const ended = await effects.onEnd(context('end'), held);
      expect(ended.filter((r) => r.operation === 'floatingip.delete')).toHaveLength(2);
      expect(ended.filter((r) => r.operation === 'floatingip.delete' && r.already === true)).toEqual([]);
      expect(await at(first)).toEqual([]);
      expect(await at(second)).toEqual([]);
      const endedAgain = await effects.onEnd(context('end'), held);
      expect(endedAgain).toEqual([
        { operation: 'floatingip.delete', floating_ip_id: null, address: first, network_id: env.publicNetworkId, already: true },
        { operation: 'floatingip.delete', floating_ip_id: null, address: second, network_id: env.publicNetworkId, already: true },
      ]);
    },
  );

  it("fails the start on an address someone else holds, and leaves that holder's address alone at end", { timeout: 60_000 }, async () => {
    const [address = ''] = await freeAddresses(1);
    const foreign = await neutron.createFloatingIp({
      floating_network_id: env.publicNetworkId,
      floating_ip_address: address,
      project_id: env.otherProjectId,
    });
    try {
      const failure = await effects.onStart(context('start'), reservation([address])).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(EffectFailedError);
      expect((failure as EffectFailedError).message).toBe(`Floating IP ${address} is already allocated on network ${env.publicNetworkId}`);
      await effects.onEnd(context('end'), reservation([address]));
      expect((await at(address)).map((f) => f.id)).toEqual([foreign.id]);
    } finally {
      await ignoreNotFound(neutron.deleteFloatingIp(foreign.id));
    }
  });

  it("records Neutron's own refusal (an address outside every subnet) as the outcome", { timeout: 30_000 }, async () => {
    const id = randomUUID();
    const failure = await effects.onStart(context('start', id), reservation(['10.254.254.254'], id)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EffectFailedError);
    expect((failure as EffectFailedError).message).toMatch(/10\.254\.254\.254/);
    expect((failure as EffectFailedError).effects).toEqual([]);
  });
});
