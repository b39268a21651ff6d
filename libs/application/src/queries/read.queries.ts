import { type DomainError, invalid, notFound } from '#domain/index.js';
import type {
  AllocationFilter,
  AvailabilityIntervalRow,
  LeasePageEntry,
  LeasePageQuery,
  LeaseSortKey,
  FlavorView,
  FloatingIpAllocationView,
  FloatingIpView,
  HostAllocationView,
  HostView,
  LeaseView,
  PropertyRow,
  ReadModelQueries,
  ResourceReads,
} from '#read-model/index.js';
import { type Caller, authorize, leaseTarget } from '../caller.js';
import { floatingIpNotFound } from '../floating-ips/floating-ip.errors.js';
import { hostNotFound } from '../hosts/host.errors.js';
import { leaseNotFound } from '../leases/lease.errors.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import { type Page, type PageRequest, type Sorting, markerNotFound, pageOf } from './pagination.js';
import { LEASE_SORT_KEYS } from '#read-model/index.js';
import type { BookedResource } from '#plugins/reservation-type.js';

/** With the other reads' 404s, where the API's routes take them. */
export { leaseNotFound };

const field = (item: object, key: string): unknown => (item as Record<string, unknown>)[key];

/** Host ids are integers handed out in order: they sort as numbers (2 before 10). */
const hostField = (host: object, key: string): unknown =>
  key === 'id' || key === 'resource_id' ? Number(field(host, key)) : field(host, key);

export const LEASE_SORTING: Sorting<LeaseView> = { keys: LEASE_SORT_KEYS, id: (lease) => lease.id, value: field };
export const HOST_SORTING: Sorting<HostView> = {
  keys: ['id', 'hypervisor_hostname', 'created_at', 'updated_at', 'vcpus', 'memory_mb', 'local_gb', 'availability_zone'],
  id: (host) => host.id,
  value: hostField,
};
export const FLOATING_IP_SORTING: Sorting<FloatingIpView> = {
  keys: ['created_at', 'id', 'floating_ip_address', 'floating_network_id', 'updated_at'],
  id: (ip) => ip.id,
  value: field,
};
export const HOST_ALLOCATION_SORTING: Sorting<HostAllocationView> = {
  keys: ['resource_id'],
  id: (allocation) => allocation.resource_id,
  value: hostField,
};

/** Blazar's lease states, as `GET /v1/leases?status=` takes them. */
export const LEASE_STATUSES = ['PENDING', 'STARTING', 'ACTIVE', 'TERMINATING', 'TERMINATED', 'ERROR'] as const;

/** Which leases a list keeps (null: any). */
export interface LeaseFilter {
  readonly status: string | null;
  readonly projectId: string | null;
}

const everything = <Item>(items: readonly Item[]): Page<Item> => ({ items, next: null });

const paged = <Item>(items: readonly Item[], page: PageRequest | null, sorting: Sorting<Item>): Page<Item> =>
  page === null ? everything(items) : pageOf(items, page, sorting);

const checkStatusFilter = (filter: LeaseFilter): void => {
  if (filter.status !== null && !(LEASE_STATUSES as readonly string[]).includes(filter.status)) {
    throw invalid('INVALID_STATUS_FILTER', `status must be one of ${LEASE_STATUSES.join(', ')}`);
  }
};

/** Upstream's 404, with why: asked as of an instant before the lease was created. */
const leaseNotYetCreated = (leaseId: string, instant: string, createdAt: string): DomainError =>
  notFound(
    'LEASE_NOT_YET_CREATED',
    `Object with {'lease_id': '${leaseId}'} not found as of ${instant}: the lease did not exist yet (created at ${createdAt})`,
  );

/** A past instant reads answer at: the instant asked for and the log position it stands for. */
export interface PastInstant {
  readonly position: number;
  readonly instant: string;
}

/** Nova's words; a private flavor is not found by those who may not see it. */
export const flavorNotFound = (flavorId: string): DomainError => notFound('FLAVOR_NOT_FOUND', `Flavor ${flavorId} could not be found.`);

export const propertyNotFound = (name: string): DomainError => notFound('PROPERTY_NOT_FOUND', `Resource property ${name} not found`);

/** A resource property as `GET /v1/os-hosts/properties?detail=...` lists it. */
export type PropertyListing =
  { readonly property: string } | { readonly property: string; readonly private: boolean; readonly values: readonly string[] };

/** Who may see the bookings on each kind's calendars. */
const ALLOCATIONS_ACTION: { readonly [K in BookedResource['kind']]: string } = {
  host: ACTIONS.hostAllocations,
  floatingip: ACTIONS.floatingIpAllocations,
  network: ACTIONS.networkAllocations,
};

/**
 * What callers may read, whatever transport asks: each query authorizes its caller (upstream's
 * policy, in upstream's order: the policy first for collections and admin resources, the stored
 * lease's project for one lease) and answers from the read models.
 */
export class ReadQueries {
  constructor(
    private readonly read: ReadModelQueries,
    /** Leases, hosts, floating IPs and their allocations: live, or as of a log position. */
    private readonly resources: ResourceReads = read,
    /** The instant `resources` stand at; null: live. */
    private readonly past: PastInstant | null = null,
  ) {}

  /** Leases, hosts, floating IPs and their allocations as they stood right after the event at `position`. */
  asOf(past: PastInstant): ReadQueries {
    return new ReadQueries(this.read, this.read.asOf(past.position), past);
  }

  /** Admins (the policy's `admin` rule) see every project's leases, others their project's. */
  async leases(caller: Caller): Promise<LeaseView[]> {
    authorize(caller, ACTIONS.leaseGet);
    return this.resources.leases(caller.can('admin', {}) ? null : caller.projectId);
  }

  /**
   * The live lease list `leaseListPage` gives, as each document's stored JSON, filtered, sorted and
   * paged by the read model's database (never as of a past position: that list is folded, see leaseListPage).
   */
  async leaseDocumentPage(caller: Caller, filter: LeaseFilter, page: PageRequest | null): Promise<Page<string>> {
    authorize(caller, ACTIONS.leaseGet);
    checkStatusFilter(filter);
    const own = caller.can('admin', {}) ? null : caller.projectId;
    if (own !== null && filter.projectId !== null && filter.projectId !== own) return { items: [], next: null };
    const found = await this.read.leaseDocumentPage({
      projectId: own ?? filter.projectId,
      status: filter.status,
      sort: page === null ? null : { key: page.sortKey as LeaseSortKey, dir: page.sortDir },
      marker: page?.marker ?? null,
      limit: page?.limit ?? null,
    });
    if (!found.markerFound) throw markerNotFound(page?.marker ?? '');
    return {
      items: found.documents,
      next: page !== null && found.more && found.lastId !== null ? { ...page, marker: found.lastId } : null,
    };
  }

  /** A list of leases: filtered by status and project, then one page of it (all of it without a page request). */
  async leaseListPage(caller: Caller, filter: LeaseFilter, page: PageRequest | null): Promise<Page<LeaseView>> {
    checkStatusFilter(filter);
    const leases = (await this.leases(caller)).filter(
      (lease) =>
        (filter.status === null || lease.status === filter.status) && (filter.projectId === null || lease.project_id === filter.projectId),
    );
    return paged(leases, page, LEASE_SORTING);
  }

  async hostPage(caller: Caller, page: PageRequest | null): Promise<Page<HostView>> {
    return paged(await this.hosts(caller), page, HOST_SORTING);
  }

  async hostAllocationPage(
    caller: Caller,
    filter: AllocationFilter,
    now: string,
    page: PageRequest | null,
  ): Promise<Page<HostAllocationView>> {
    return paged(await this.hostAllocations(caller, filter, now), page, HOST_ALLOCATION_SORTING);
  }

  async floatingIpPage(caller: Caller, page: PageRequest | null): Promise<Page<FloatingIpView>> {
    return paged(await this.floatingIps(caller), page, FLOATING_IP_SORTING);
  }

  /**
   * A page of the leases `leases` lists, filtered in the query: a project filter only narrows what the
   * caller may see (a member naming another project gets nothing, as its leases are not in its list).
   */
  async leasePage(caller: Caller, query: LeasePageQuery): Promise<LeasePageEntry[]> {
    authorize(caller, ACTIONS.leaseGet);
    if (caller.can('admin', {})) return this.read.leasePage(query);
    if (query.projectId !== null && query.projectId !== caller.projectId) return [];
    return this.read.leasePage({ ...query, projectId: caller.projectId });
  }

  /** The bookings of these reservations, for who may see the allocations of hosts (whole or in slots) or of addresses. */
  async reservationBookings(
    caller: Caller,
    kind: BookedResource['kind'],
    reservationIds: readonly string[],
  ): Promise<AvailabilityIntervalRow[]> {
    authorize(caller, ALLOCATIONS_ACTION[kind]);
    return this.read.bookingsOfReservations(kind, reservationIds);
  }

  /** The bookings on these hosts or addresses of leases not ended at `nowMs` (upstream's allocation view without a filter). */
  async resourceBookings(
    caller: Caller,
    kind: 'host' | 'floatingip',
    resourceIds: readonly string[],
    nowMs: number,
  ): Promise<AvailabilityIntervalRow[]> {
    authorize(caller, ALLOCATIONS_ACTION[kind]);
    return this.read.bookingsOnResources(kind, resourceIds, nowMs);
  }

  /** 404 when there is no such lease, then the policy on the stored lease's project: 403 for another project's. */
  async lease(caller: Caller, leaseId: string): Promise<LeaseView> {
    const lease = await this.resources.lease(leaseId);
    if (lease === null) throw await this.missingLease(caller, leaseId);
    authorize(caller, ACTIONS.leaseGet, leaseTarget({ projectId: lease.project_id, userId: lease.user_id }));
    return lease;
  }

  /**
   * Why a lease is not there: as of a past instant, one that exists now was created later, which whoever
   * may read it now is told; otherwise upstream's 404.
   */
  private async missingLease(caller: Caller, leaseId: string): Promise<DomainError> {
    const live = this.past === null ? null : await this.read.lease(leaseId);
    if (this.past === null || live === null) return leaseNotFound(leaseId);
    authorize(caller, ACTIONS.leaseGet, leaseTarget({ projectId: live.project_id, userId: live.user_id }));
    return leaseNotYetCreated(leaseId, this.past.instant, live.created_at);
  }

  async hosts(caller: Caller): Promise<HostView[]> {
    authorize(caller, ACTIONS.hostGet);
    return this.resources.hosts();
  }

  async host(caller: Caller, hostId: string): Promise<HostView> {
    authorize(caller, ACTIONS.hostGet);
    const host = await this.resources.host(hostId);
    if (host === null) throw hostNotFound(hostId);
    return host;
  }

  /** Upstream lists every host; without a filter only allocations of leases not yet ended (`now`) are shown. */
  async hostAllocations(caller: Caller, filter: AllocationFilter, now: string): Promise<HostAllocationView[]> {
    authorize(caller, ACTIONS.hostAllocations);
    return this.resources.allocations(filter, now);
  }

  async hostAllocation(caller: Caller, hostId: string, filter: AllocationFilter, now: string): Promise<HostAllocationView> {
    authorize(caller, ACTIONS.hostAllocations);
    const [allocation] = await this.resources.allocations(filter, now, hostId);
    if (allocation === undefined) throw hostNotFound(hostId);
    return allocation;
  }

  /** Private properties only for admins who ask for all; with `detail`, each property's values across hosts. */
  async properties(caller: Caller, options: { readonly detail: boolean; readonly all: boolean }): Promise<PropertyListing[]> {
    authorize(caller, ACTIONS.propertiesGet);
    const showPrivate = options.all && caller.can('admin', {});
    const rows = (await this.read.properties()).filter((row) => showPrivate || !row.private);
    if (!options.detail) return rows.map((row) => ({ property: row.name }));
    const hosts = await this.read.hosts();
    return rows.map((row) => ({
      property: row.name,
      private: row.private,
      values: [...new Set(hosts.flatMap((host) => (typeof host[row.name] === 'string' ? [host[row.name] as string] : [])))].sort(),
    }));
  }

  /** The property as it is now (after a privacy change is projected). */
  async property(name: string): Promise<PropertyRow> {
    const row = await this.read.property(name);
    if (row === null) throw propertyNotFound(name);
    return row;
  }

  async floatingIps(caller: Caller): Promise<FloatingIpView[]> {
    authorize(caller, ACTIONS.floatingIpGet);
    return this.resources.floatingIps();
  }

  async floatingIp(caller: Caller, floatingIpId: string): Promise<FloatingIpView> {
    authorize(caller, ACTIONS.floatingIpGet);
    const floatingIp = await this.resources.floatingIp(floatingIpId);
    if (floatingIp === null) throw floatingIpNotFound(floatingIpId);
    return floatingIp;
  }

  async floatingIpAllocations(caller: Caller, filter: AllocationFilter, now: string): Promise<FloatingIpAllocationView[]> {
    authorize(caller, ACTIONS.floatingIpAllocations);
    return this.resources.floatingIpAllocations(filter, now);
  }

  async floatingIpAllocation(
    caller: Caller,
    floatingIpId: string,
    filter: AllocationFilter,
    now: string,
  ): Promise<FloatingIpAllocationView> {
    authorize(caller, ACTIONS.floatingIpAllocations);
    const [allocation] = await this.resources.floatingIpAllocations(filter, now, floatingIpId);
    if (allocation === undefined) throw floatingIpNotFound(floatingIpId);
    return allocation;
  }

  /** Admins see every flavor, others the public ones (Nova without flavor access lists). */
  async flavors(caller: Caller): Promise<FlavorView[]> {
    authorize(caller, ACTIONS.flavorGet);
    return this.read.flavors(caller.isAdmin);
  }

  async flavor(caller: Caller, flavorId: string): Promise<FlavorView> {
    authorize(caller, ACTIONS.flavorGet);
    const found = await this.read.flavor(flavorId);
    if (found === null || (!found.isPublic && !caller.isAdmin)) throw flavorNotFound(flavorId);
    return found.view;
  }
}
