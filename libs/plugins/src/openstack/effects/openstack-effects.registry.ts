import type { OpenStackSettings } from '../../cloud-config.js';
import type { EffectsRegistry } from '../../effects.port.js';
import { RESERVATION_TYPES } from '../../reservation-types.js';
import { KeystoneTrustsClient } from '../keystone-trusts.client.js';
import { NeutronClient } from '../neutron.client.js';
import { NovaClient } from '../nova.client.js';
import { type OpenStackCallLog, OpenStackSession } from '../openstack.session.js';
import type { OpenStackEffectsOptions } from './openstack-effects.options.js';
import type { OpenStackClients } from './openstack-effects.support.js';
import { preemptibleOptionsOf } from './preemptible.openstack-effects.js';
import { OpenStackTrustEffects } from './trust.openstack-effects.js';

export const openStackClients = (session: OpenStackSession): OpenStackClients => ({
  session,
  nova: new NovaClient(session),
  neutron: new NeutronClient(session),
});

/** Every registered type's effects on one OpenStack cloud, through one session of Leasehold's service user. */
export const openStackEffectsRegistry = (session: OpenStackSession, options: OpenStackEffectsOptions): EffectsRegistry => {
  const clients = openStackClients(session);
  const byType = Object.fromEntries(RESERVATION_TYPES.map((module) => [module.resourceType, module.effects.openstack(clients, options)]));
  return { ...(byType as unknown as EffectsRegistry), trusts: new OpenStackTrustEffects(new KeystoneTrustsClient(session)) };
};

/** The registry from LEASEHOLD_CLOUD=openstack's settings (cloud-config.ts). */
export const openStackEffectsFromSettings = (settings: OpenStackSettings, log?: (line: OpenStackCallLog) => void): EffectsRegistry => {
  const session = OpenStackSession.create(settings.credentials, { interface: settings.interface, ...(log === undefined ? {} : { log }) });
  const { freepoolName, freepoolPerZone } = settings;
  return openStackEffectsRegistry(session, { freepoolName, freepoolPerZone, preemptible: preemptibleOptionsOf(settings.preemptible) });
};
