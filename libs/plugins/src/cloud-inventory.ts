import type { FloatingIpNetworks } from './ports/floating-ip-networks.port.js';
import type { HostInventory } from './ports/host-inventory.port.js';
import { NO_ZONE_RULE, type ZoneRule } from './zone-rule.js';
import type { CloudConfig } from './cloud-config.js';
import { NeutronClient } from './openstack/neutron.client.js';
import { NovaClient } from './openstack/nova.client.js';
import { NovaHostInventory } from './openstack/nova-host-inventory.js';
import { OpenStackFloatingIpNetworks } from './openstack/openstack-floating-ip-networks.js';
import { OpenStackSession } from './openstack/openstack.session.js';
import { StandaloneFloatingIpNetworks } from './standalone/standalone-floating-ip-networks.js';
import { StandaloneHostInventory } from './standalone/standalone-host-inventory.js';

/** One session (one token) for every OpenStack-backed port of a process; null in standalone mode. */
export const openStackSessionFor = (cloud: CloudConfig): OpenStackSession | null =>
  cloud.kind === 'openstack' ? OpenStackSession.create(cloud.openstack.credentials, { interface: cloud.openstack.interface }) : null;

/** Where a new host's facts come from: the registration itself (standalone, with the zones' sizes stated) or Nova. */
export const hostInventoryFor = (session: OpenStackSession | null, standaloneZoneHosts: ZoneRule = NO_ZONE_RULE): HostInventory =>
  session === null ? new StandaloneHostInventory(standaloneZoneHosts) : new NovaHostInventory(new NovaClient(session));

/** Where a floating IP may be set aside: anywhere (standalone) or where Neutron says. */
export const floatingIpNetworksFor = (session: OpenStackSession | null): FloatingIpNetworks =>
  session === null ? new StandaloneFloatingIpNetworks() : new OpenStackFloatingIpNetworks(new NeutronClient(session));
