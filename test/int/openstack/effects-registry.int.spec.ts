/**
 * The reactor's wiring: LEASEHOLD_CLOUD=openstack with Leasehold's service user selects the OpenStack
 * adapters, which act on the real cloud (a floating IP reservation's start and end); standalone stays the default.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openEffects, parseEffectsConfig } from '#reactor/effects-config.js';
import { OpenStackFloatingIpEffects } from '#plugins/floating-ip/openstack/floating-ip.openstack-effects.js';
import { OpenStackHostEffects } from '#plugins/physical-host/openstack/physical-host.openstack-effects.js';
import { OpenStackInstanceEffects } from '#plugins/instance/openstack/instance.openstack-effects.js';
import { EffectFailedError } from '#plugins/effects.port.js';
import { openStackEffectsRegistry } from '#plugins/openstack/effects/index.js';
import { NeutronClient, OpenStackSession, OpenStackUnreachableError } from '#plugins/openstack/index.js';
import type { FloatingIpReservation } from '#plugins/floating-ip/floating-ip.reservation.js';
import { OPENSTACK_ENV_FILE, openStackEnv, sessionFor } from './openstack.fixtures.js';

const on = Boolean(OPENSTACK_ENV_FILE);

describe.skipIf(!on)('LEASEHOLD_CLOUD=openstack (real control plane)', () => {
  const env = on ? openStackEnv() : (undefined as never);

  it('keeps the standalone cloud as the default', () => {
    expect(parseEffectsConfig({})).toEqual({ kind: 'standalone' });
    expect(parseEffectsConfig({ LEASEHOLD_EFFECTS: 'standalone' })).toEqual({ kind: 'standalone' });
    expect(() => parseEffectsConfig({ LEASEHOLD_CLOUD: 'aws' })).toThrow(/Unknown LEASEHOLD_CLOUD value 'aws'/);
  });

  it('selects the OpenStack adapters, which act with the service user', { timeout: 60_000 }, async () => {
    const config = parseEffectsConfig({
      LEASEHOLD_CLOUD: 'openstack',
      LEASEHOLD_OPENSTACK_AUTH_URL: env.service.authUrl,
      LEASEHOLD_OPENSTACK_USERNAME: env.service.username,
      LEASEHOLD_OPENSTACK_PASSWORD: env.service.password,
      LEASEHOLD_OPENSTACK_PROJECT_NAME: env.service.projectName,
      LEASEHOLD_OPENSTACK_REGION_NAME: env.service.regionName ?? undefined,
    });
    const dir = mkdtempSync(join(tmpdir(), 'lh-effects-'));
    const effects = openEffects(config, dir);
    try {
      expect(effects.kind).toBe('openstack');
      expect(effects.registry['physical:host']).toBeInstanceOf(OpenStackHostEffects);
      expect(effects.registry['virtual:instance']).toBeInstanceOf(OpenStackInstanceEffects);
      expect(effects.registry['flavor:instance']).toBeInstanceOf(OpenStackInstanceEffects);
      expect(effects.registry['virtual:floatingip']).toBeInstanceOf(OpenStackFloatingIpEffects);

      const neutron = new NeutronClient(sessionFor(env.admin));
      const prefix = env.publicSubnetCidr.split('.').slice(0, 3).join('.');
      const taken = new Set(
        (await neutron.listFloatingIps({ floating_network_id: env.publicNetworkId })).map((f) => f.floating_ip_address),
      );
      const address = Array.from({ length: 53 }, (_, n) => `${prefix}.${n + 201}`).find((a) => !taken.has(a)) ?? '';
      const id = randomUUID();
      const reservation: FloatingIpReservation = {
        id,
        resourceId: randomUUID(),
        resourceType: 'virtual:floatingip',
        networkId: env.publicNetworkId,
        amount: 1,
        requiredFloatingIps: [address],
        allocations: [{ floatingIpId: 'fip-1', address }],
      };
      const context = (phase: 'start' | 'end') => ({
        idempotencyKey: `${id}:${phase}`,
        leaseId: `lease-${id}`,
        projectId: env.demoProjectId,
        phase,
        resourceNames: {},
      });
      await effects.registry['virtual:floatingip'].onStart(context('start'), reservation);
      try {
        expect(await neutron.listFloatingIps({ floating_ip_address: address })).toMatchObject([{ project_id: env.demoProjectId }]);
      } finally {
        await effects.registry['virtual:floatingip'].onEnd(context('end'), reservation);
      }
      expect(await neutron.listFloatingIps({ floating_ip_address: address })).toEqual([]);
    } finally {
      effects.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves an unreachable cloud a transient failure (retried), not a recorded outcome', { timeout: 30_000 }, async () => {
    const session = OpenStackSession.create({ ...env.service, authUrl: 'http://127.0.0.1:9/v3' }, { timeoutMs: 2_000 });
    const registry = openStackEffectsRegistry(session, { freepoolName: 'freepool' });
    const id = randomUUID();
    const reservation: FloatingIpReservation = {
      id,
      resourceId: randomUUID(),
      resourceType: 'virtual:floatingip',
      networkId: env.publicNetworkId,
      amount: 1,
      requiredFloatingIps: [],
      allocations: [{ floatingIpId: 'fip-1', address: '172.24.4.250' }],
    };
    const context = {
      idempotencyKey: `${id}:start`,
      leaseId: `lease-${id}`,
      projectId: env.demoProjectId,
      phase: 'start' as const,
      resourceNames: {},
    };
    const failure = await registry['virtual:floatingip'].onStart(context, reservation).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenStackUnreachableError);
    expect(failure).not.toBeInstanceOf(EffectFailedError);
  });
});
