import {
  type CancelMaintenanceData,
  type DomainEvent,
  type FloatingIpState,
  type MaintenanceWindow,
  type RegisteredFloatingIp,
  type RegisteredHost,
  type ScheduleMaintenanceData,
  floatingIpDecider,
  floatingIpStream,
  hostDecider,
  hostStream,
} from '#domain/index.js';
import { floatingIpNotFound } from '../floating-ips/floating-ip.errors.js';
import { registered as registeredHost } from '../hosts/host.use-cases.js';
import { networkSegments } from '#plugins/network/network.kind.js';
import { networkNotFound } from '#plugins/network/network-segment.rules.js';
import type { NetworkSegmentState, RegisteredNetworkSegment } from '#plugins/network/network-segment.state.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import type { Versioned, WriteIndex } from '../write-model/write-index.js';

/** Who may list, schedule and cancel a kind's windows. */
export interface MaintenancePolicy {
  readonly list: string;
  readonly schedule: string;
  readonly cancel: string;
}

/**
 * A kind whose resources take maintenance windows (docs/maintenance.md), declared once: its routes
 * (`/v1/<route>/{<idParam>}/maintenance`, a window naming its resource by `<idField>`), its policy, where the write
 * side holds its resources, and the two commands its decider takes. The rules, the use cases, the handlers and the
 * controller are every kind's; a kind gets all of them by its entry in MAINTAINED_KINDS.
 */
export interface MaintainedKind<S> {
  readonly kind: string;
  readonly route: string;
  readonly idParam: string;
  readonly idField: string;
  /** The kind in names (`Host`: HostMaintenanceController, scheduleHostMaintenance) and in sentences ("a host"). */
  readonly title: string;
  readonly noun: string;
  readonly policy: MaintenancePolicy;
  stream(id: string): string;
  /** The resource as the write side holds it, registered, or its 404. */
  registered(index: WriteIndex, id: string): Versioned<S>;
  /** Every registered resource's id and state, in the order the lists show them. */
  every(index: WriteIndex): readonly (readonly [id: string, state: S])[];
  windows(state: S): readonly MaintenanceWindow[];
  schedule(data: ScheduleMaintenanceData, state: S): readonly DomainEvent[];
  cancel(data: CancelMaintenanceData, state: S): readonly DomainEvent[];
}

/** The floating IP as the write side holds it, or its 404. */
const registeredFloatingIp = (floatingIpId: string, { state, revision }: Versioned<FloatingIpState>): Versioned<RegisteredFloatingIp> => {
  if (state.status !== 'Registered') throw floatingIpNotFound(floatingIpId);
  return { state, revision };
};

export const HOST_MAINTENANCE: MaintainedKind<RegisteredHost> = {
  kind: 'host',
  route: 'os-hosts',
  idParam: 'hostId',
  idField: 'host_id',
  title: 'Host',
  noun: 'a host',
  policy: { list: ACTIONS.hostMaintenanceGet, schedule: ACTIONS.hostMaintenancePost, cancel: ACTIONS.hostMaintenanceDelete },
  stream: hostStream,
  registered: (index, id) => registeredHost(id, index.host(id)),
  every: (index) => index.registeredHosts().map((host) => [host.hostId, host] as const),
  windows: (host) => host.maintenance,
  schedule: (data, host) => hostDecider.decide({ type: 'ScheduleHostMaintenance', data }, host),
  cancel: (data, host) => hostDecider.decide({ type: 'CancelHostMaintenance', data }, host),
};

export const FLOATING_IP_MAINTENANCE: MaintainedKind<RegisteredFloatingIp> = {
  kind: 'floatingip',
  route: 'floatingips',
  idParam: 'floatingIpId',
  idField: 'floatingip_id',
  title: 'FloatingIp',
  noun: 'a floating IP',
  policy: {
    list: ACTIONS.floatingIpMaintenanceGet,
    schedule: ACTIONS.floatingIpMaintenancePost,
    cancel: ACTIONS.floatingIpMaintenanceDelete,
  },
  stream: floatingIpStream,
  registered: (index, id) => registeredFloatingIp(id, index.floatingIp(id)),
  every: (index) => index.registeredFloatingIps().map((ip) => [ip.floatingIpId, ip] as const),
  windows: (ip) => ip.maintenance,
  schedule: (data, ip) => floatingIpDecider.decide({ type: 'ScheduleFloatingIpMaintenance', data }, ip),
  cancel: (data, ip) => floatingIpDecider.decide({ type: 'CancelFloatingIpMaintenance', data }, ip),
};

/** The network segment as the write side holds it (a registered resource kind's resource), or its 404. */
const registeredNetwork = (index: WriteIndex, networkId: string): Versioned<RegisteredNetworkSegment> => {
  const { state, revision } = index.kindResource<NetworkSegmentState>('network', networkId);
  if (state.status !== 'Registered') throw networkNotFound(networkId);
  return { state, revision };
};

export const NETWORK_MAINTENANCE: MaintainedKind<RegisteredNetworkSegment> = {
  kind: 'network',
  route: 'networks',
  idParam: 'networkId',
  idField: 'network_id',
  title: 'Network',
  noun: 'a network segment',
  policy: { list: ACTIONS.networkMaintenanceGet, schedule: ACTIONS.networkMaintenancePost, cancel: ACTIONS.networkMaintenanceDelete },
  stream: (networkId) => networkSegments.stream(networkId),
  registered: registeredNetwork,
  every: (index) => index.registeredKindResourceIds('network').map((id) => [id, registeredNetwork(index, id).state] as const),
  windows: (segment) => segment.maintenance,
  schedule: (data, segment) => networkSegments.decider.decide(networkSegments.maintenance.schedule(data), segment),
  cancel: (data, segment) => networkSegments.decider.decide(networkSegments.maintenance.cancel(data), segment),
};

/** A kind as the generic use cases, handlers and controller hold it (each only ever gets its own kind's states). */
export type AnyMaintainedKind = MaintainedKind<unknown>;

/** Every kind that takes maintenance windows: the one list to extend. */
export const MAINTAINED_KINDS: readonly AnyMaintainedKind[] = [HOST_MAINTENANCE, FLOATING_IP_MAINTENANCE, NETWORK_MAINTENANCE].map(
  (kind) => kind as unknown as AnyMaintainedKind,
);

const BY_NAME: ReadonlyMap<string, AnyMaintainedKind> = new Map(MAINTAINED_KINDS.map((kind) => [kind.kind, kind]));

export const maintainedKind = (name: string): AnyMaintainedKind => {
  const kind = BY_NAME.get(name);
  if (kind === undefined) throw new Error(`No maintained kind ${name}`);
  return kind;
};
