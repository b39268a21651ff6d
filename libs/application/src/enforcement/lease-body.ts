import { DateTime } from 'luxon';
import type { Capabilities, Reservation } from '#domain/index.js';

/** Who asks (upstream's context: the caller on create and update, the lease's owner on end). */
export interface EnforcementContext {
  readonly userId: string;
  readonly projectId: string;
  readonly authUrl: string | null;
  readonly regionName: string | null;
}

/** A lease as the filters see it: its dates (ISO-8601 UTC) and reservations with their allocations. */
export interface EnforcedLease {
  readonly startDate: string;
  readonly endDate: string;
  readonly reservations: readonly Reservation[];
}

/** What the body says of an allocated resource, from the write side's registry (null: no longer registered). */
export interface EnforcementResources {
  host(hostId: string): { readonly hypervisorHostname: string; readonly capabilities: Capabilities } | null;
  floatingIp(floatingIpId: string): { readonly networkId: string; readonly address: string } | null;
}

const blazarDate = (iso: string): string => DateTime.fromISO(iso, { zone: 'utc' }).toFormat('yyyy-MM-dd HH:mm');

const hostAllocation = (resources: EnforcementResources, hostId: string) => {
  const host = resources.host(hostId);
  return { id: hostId, hypervisor_hostname: host?.hypervisorHostname ?? null, extra: host?.capabilities ?? {} };
};

const uniqueHosts = (resources: EnforcementResources, hostIds: readonly string[]) =>
  [...new Set(hostIds)].map((id) => hostAllocation(resources, id));

/** A reservation's user-controllable fields (no ids or bookkeeping, as upstream) and its allocations. */
const reservationBody = (resources: EnforcementResources, r: Reservation): Record<string, unknown> => {
  switch (r.resourceType) {
    case 'physical:host':
      return {
        resource_type: r.resourceType,
        min: r.min,
        max: r.max,
        hypervisor_properties: r.hypervisorProperties,
        resource_properties: r.resourceProperties,
        before_end: r.beforeEnd,
        allocations: uniqueHosts(resources, r.hostIds),
      };
    case 'virtual:instance':
    case 'flavor:instance': {
      const shape =
        r.resourceType === 'flavor:instance'
          ? { flavor_id: r.sourceFlavorId }
          : { vcpus: r.vcpus, memory_mb: r.memoryMb, disk_gb: r.diskGb };
      const fields = {
        resource_type: r.resourceType,
        amount: r.amount,
        ...shape,
        affinity: r.affinity,
        resource_properties: r.resourceProperties,
      };
      return {
        ...fields,
        allocations: uniqueHosts(
          resources,
          r.allocations.map((a) => a.hostId),
        ),
      };
    }
    case 'virtual:floatingip':
      return {
        resource_type: r.resourceType,
        network_id: r.networkId,
        amount: r.amount,
        required_floatingips: r.requiredFloatingIps,
        allocations: r.allocations.map((a) => ({
          id: a.floatingIpId,
          floating_network_id: resources.floatingIp(a.floatingIpId)?.networkId ?? r.networkId,
          floating_ip_address: a.address,
        })),
      };
    default: {
      const _never: never = r;
      return _never;
    }
  }
};

/** Upstream's lease body: dates as `YYYY-MM-DD HH:MM`, each reservation with its allocations. */
export const leaseBody = (resources: EnforcementResources, lease: EnforcedLease): Record<string, unknown> => ({
  start_date: blazarDate(lease.startDate),
  end_date: blazarDate(lease.endDate),
  reservations: lease.reservations.map((r) => reservationBody(resources, r)),
});

export const contextBody = (context: EnforcementContext): Record<string, unknown> => ({
  user_id: context.userId,
  project_id: context.projectId,
  auth_url: context.authUrl,
  region_name: context.regionName,
});
