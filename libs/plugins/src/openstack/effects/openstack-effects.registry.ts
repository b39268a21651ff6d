import type { OpenStackSettings } from '../../cloud-config.js';
import type { EffectsRegistry } from '../../effects.port.js';
import { KeystoneTrustsClient } from '../keystone-trusts.client.js';
import { NeutronClient } from '../neutron.client.js';
import { NovaClient } from '../nova.client.js';
import { type OpenStackCallLog, OpenStackSession } from '../openstack.session.js';
import { OpenStackFloatingIpEffects } from './floating-ip.openstack-effects.js';
import { OpenStackInstanceEffects } from './instance.openstack-effects.js';
import type { OpenStackClients, ServerDeletion } from './openstack-effects.support.js';
import { OpenStackHostEffects } from './physical-host.openstack-effects.js';
import { type PreemptibleOptions, preemptibleOptionsOf } from './preemptible.openstack-effects.js';
import { OpenStackTrustEffects } from './trust.openstack-effects.js';

export interface OpenStackEffectsOptions {
  readonly freepoolName: string;
  readonly freepoolPerZone?: boolean;
  readonly defaultBeforeEnd?: 'snapshot' | '';
  readonly serverDeletion?: ServerDeletion;
  readonly preemptible?: PreemptibleOptions | null;
}

export const openStackClients = (session: OpenStackSession): OpenStackClients => ({
  session,
  nova: new NovaClient(session),
  neutron: new NeutronClient(session),
});

/** Every resource type's effects on one OpenStack cloud, through one session of Leasehold's service user. */
export const openStackEffectsRegistry = (session: OpenStackSession, options: OpenStackEffectsOptions): EffectsRegistry => {
  const clients = openStackClients(session);
  const instances = new OpenStackInstanceEffects(clients, options);
  return {
    'physical:host': new OpenStackHostEffects(clients, options),
    'virtual:instance': instances,
    'flavor:instance': instances,
    'virtual:floatingip': new OpenStackFloatingIpEffects(clients),
    trusts: new OpenStackTrustEffects(new KeystoneTrustsClient(session)),
  };
};

/** The registry from LEASEHOLD_CLOUD=openstack's settings (cloud-config.ts). */
export const openStackEffectsFromSettings = (settings: OpenStackSettings, log?: (line: OpenStackCallLog) => void): EffectsRegistry => {
  const session = OpenStackSession.create(settings.credentials, { interface: settings.interface, ...(log === undefined ? {} : { log }) });
  const { freepoolName, freepoolPerZone } = settings;
  return openStackEffectsRegistry(session, { freepoolName, freepoolPerZone, preemptible: preemptibleOptionsOf(settings.preemptible) });
};
