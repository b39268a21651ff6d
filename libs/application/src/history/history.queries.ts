import {
  FLOATING_IP_REGISTRY_STREAM,
  HOST_REGISTRY_STREAM,
  type LeaseCreated,
  type LeaseRequestSubmitted,
  type Reservation,
  floatingIpStream,
  hostActivityStream,
  hostStream,
  leaseRequestNotFound,
  leaseRequestStream,
  leaseStream,
} from '#domain/index.js';
import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import { reservedFloatingIpIds, reservedHostIds, reservedResources } from '#plugins/reservation-holdings.js';
import { RESOURCE_KINDS, type ResourceKindName, resourceKind } from '#plugins/resource-kinds.js';
import type { DomainError } from '#domain/index.js';
import { type Caller, authorize, leaseTarget } from '../caller.js';
import { floatingIpNotFound } from '../floating-ips/floating-ip.errors.js';
import { hostNotFound } from '../hosts/host.errors.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import { leaseNotFound } from '../leases/lease.errors.js';
import { withChanges } from './history-changes.js';
import { type HistoryEntry, historyEntry, isCatalogued } from './history-entry.js';

/** The reservations a stored lease event states in full (at creation, after a change, after healing). */
const reservationsIn = (event: RecordedEvent): readonly Reservation[] => {
  switch (event.type) {
    case 'Lease.Created':
      return (event.data as LeaseCreated['data']).reservations;
    case 'Reservation.Changed':
    case 'Reservation.Healed':
      return [(event.data as { reservation: Reservation }).reservation];
    default:
      return [];
  }
};

const dataField = (event: RecordedEvent, field: string): unknown => (event.data as Readonly<Record<string, unknown>>)[field];

/** Log order across streams; events of the store's own tests (outside the catalogue) are not history. */
const inLogOrder = (events: readonly RecordedEvent[]): HistoryEntry[] =>
  [...events]
    .sort((a, b) => a.position - b.position)
    .flatMap((event) => (isCatalogued(event.type) ? [historyEntry({ ...event, type: event.type })] : []));

/** How a history reads one stream: the store's own read, or a caller's that counts, bounds or shares what it reads. */
export type StreamReader = (streamId: string) => Promise<RecordedEvent[]>;

/**
 * A resource's events, read by stream (never a scan of the log): a lease's own stream names every
 * reservation it ever had and the hosts and addresses they held, whose streams hold its bookings.
 */
export class HistoryQueries {
  constructor(private readonly store: EventStore) {}

  /**
   * As reading the lease: 404 when there is none, then the policy on its project and user (a deleted lease's too).
   * Each change says what it changed (`changes`).
   */
  async lease(
    caller: Caller,
    leaseId: string,
    read: StreamReader = (streamId) => this.store.readStream(streamId),
  ): Promise<HistoryEntry[]> {
    const own = await read(leaseStream(leaseId));
    const creation = own.find((event) => event.type === 'Lease.Created');
    if (creation === undefined) throw leaseNotFound(leaseId);
    authorize(caller, ACTIONS.leaseGet, leaseTarget(creation.data as LeaseCreated['data']));
    return withChanges(inLogOrder([...own, ...(await this.bookings(own.flatMap(reservationsIn), read))]));
  }

  /** A lease request's own stream (docs/queue.md): 404 when there is none, then the policy on its project and user. */
  async leaseRequest(caller: Caller, requestId: string): Promise<HistoryEntry[]> {
    const own = await this.store.readStream(leaseRequestStream(requestId));
    const submitted = own.find((event) => event.type === 'LeaseRequest.Submitted');
    if (submitted === undefined) throw leaseRequestNotFound(requestId);
    authorize(caller, ACTIONS.leaseRequestGet, leaseTarget(submitted.data as LeaseRequestSubmitted['data']));
    return inLogOrder(own);
  }

  /** Admin only (the policy first, as upstream for hosts): its stream, its Nova activity, its registry entries. */
  async host(caller: Caller, hostId: string): Promise<HistoryEntry[]> {
    authorize(caller, ACTIONS.hostHistory);
    const own = await this.store.readStream(hostStream(hostId));
    if (own.length === 0) throw hostNotFound(hostId);
    const activity = await this.store.readStream(hostActivityStream(hostId));
    const registry = await this.registryEntries(HOST_REGISTRY_STREAM, 'hostId', hostId);
    return inLogOrder([...own, ...activity, ...registry]);
  }

  /** Admin only: its stream and its registry entries. */
  async floatingIp(caller: Caller, floatingIpId: string): Promise<HistoryEntry[]> {
    authorize(caller, ACTIONS.floatingIpHistory);
    const own = await this.store.readStream(floatingIpStream(floatingIpId));
    if (own.length === 0) throw floatingIpNotFound(floatingIpId);
    const registry = await this.registryEntries(FLOATING_IP_REGISTRY_STREAM, 'floatingIpId', floatingIpId);
    return inLogOrder([...own, ...registry]);
  }

  /**
   * A resource of a registered kind (resource-kinds.ts): the policy first, as for hosts; its stream and its registry
   * entries; `missing` is its 404.
   */
  async kindResource(
    caller: Caller,
    name: ResourceKindName,
    resourceId: string,
    access: { readonly action: string; readonly missing: (id: string) => DomainError },
  ): Promise<HistoryEntry[]> {
    authorize(caller, access.action);
    const kind = resourceKind(name);
    const own = await this.store.readStream(kind.stream(resourceId));
    if (own.length === 0) throw access.missing(resourceId);
    const registry = await this.registryEntries(kind.registry.stream, kind.idField, resourceId);
    return inLogOrder([...own, ...registry]);
  }

  /** The booking events of these reservations on every host, address and other kind's resource they held. */
  private async bookings(reservations: readonly Reservation[], read: StreamReader): Promise<RecordedEvent[]> {
    const reservationIds = new Set(reservations.map((reservation) => reservation.id));
    const kindStreams = reservations
      .flatMap(reservedResources)
      .flatMap((resource) => RESOURCE_KINDS.filter((kind) => kind.kind === resource.kind).map((kind) => kind.stream(resource.id)));
    const streams = new Set([
      ...reservations.flatMap(reservedHostIds).map(hostStream),
      ...reservations.flatMap(reservedFloatingIpIds).map(floatingIpStream),
      ...kindStreams,
    ]);
    const events = await Promise.all([...streams].map((streamId) => read(streamId)));
    return events.flat().filter((event) => reservationIds.has(dataField(event, 'reservationId') as string));
  }

  private async registryEntries(streamId: string, field: string, id: string): Promise<RecordedEvent[]> {
    return (await this.store.readStream(streamId)).filter((event) => dataField(event, field) === id);
  }
}
