import { requestDate } from '#application/availability/counter-offer.js';
import type { CapacityReport } from '#application/queries/capacity.queries.js';
import type { HostStep, SlotStep, ZoneCapacity } from '#application/queries/capacity-report.js';
import type { LeaseConcentration } from '#application/queries/failure-domains.js';
import type { KindPool, KindStep } from '#application/queries/kind-capacity.js';
import type { HostCapacityPool } from '#plugins/availability/availability.port.js';
import { RESERVATION_TYPES } from '#plugins/reservation-types.js';

/** GET /v1/capacity's body, which GraphQL's `capacity` answers too. */

const date = (ms: number): string => requestDate(new Date(ms).toISOString());

/** "7 hosts for 24 h", "1 host for 90 min": the largest request as an operator reads it. */
const requestSummary = (hosts: number, minutes: number): string =>
  `${hosts} host${hosts === 1 ? '' : 's'} for ${minutes % 60 === 0 ? `${minutes / 60} h` : `${minutes} min`}`;

const hostStepBody = (step: HostStep, requestMinutes: number) => ({
  start: date(step.start),
  end: date(step.end),
  hosts_enrolled: step.enrolled,
  in_maintenance: step.inMaintenance,
  reserved_whole: step.reservedWhole,
  reserved_by_slots: step.reservedBySlots,
  free: step.free,
  peak_utilisation: step.peakUtilisation,
  largest_request: {
    hosts: step.largestRequest,
    duration_minutes: requestMinutes,
    summary: requestSummary(step.largestRequest, requestMinutes),
  },
});

const resources = (r: { readonly vcpus: number; readonly memoryMb: number; readonly diskGb: number }) => ({
  vcpus: r.vcpus,
  memory_mb: r.memoryMb,
  disk_gb: r.diskGb,
});

const slotStepBody = (step: SlotStep) => ({
  start: date(step.start),
  end: date(step.end),
  capacity: resources(step.capacity),
  peak_reserved: resources(step.peakReserved),
  peak_utilisation: step.peakUtilisation,
});

/** Each view of a zone's host capacity, by step. */
const POOL_STEPS: { readonly [P in HostCapacityPool]: (zone: ZoneCapacity, requestMinutes: number) => readonly object[] } = {
  'whole-hosts': (zone, requestMinutes) => zone.hosts.map((step) => hostStepBody(step, requestMinutes)),
  slots: (zone) => zone.slots.map(slotStepBody),
};

/** The pools of a zone, in the registry's order of the types that report them (`availability.capacityPool`). */
const POOLS = RESERVATION_TYPES.flatMap(({ resourceType, availability: { capacityPool } }) =>
  capacityPool === null ? [] : [{ resourceType, pool: capacityPool }],
);

const zoneBodies = (zone: ZoneCapacity, requestMinutes: number) =>
  POOLS.map(({ resourceType, pool }) => ({
    availability_zone: zone.availabilityZone,
    resource_type: resourceType,
    steps: POOL_STEPS[pool](zone, requestMinutes),
  }));

const kindStepBody = (step: KindStep) => ({
  start: date(step.start),
  end: date(step.end),
  registered: step.registered,
  booked_at_start: step.bookedAtStart,
  in_maintenance: step.inMaintenance,
  booked: step.booked,
  free: step.free,
  peak_utilisation: step.peakUtilisation,
});

/** A kind's pool: named by its group's fields (`network_type`, `physical_network`) where a host pool is by its zone. */
const kindPoolBody = (pool: KindPool) => ({
  resource_type: pool.kind,
  ...Object.fromEntries(pool.group),
  steps: pool.steps.map(kindStepBody),
});

const leaseBody = (lease: LeaseConcentration) => ({
  lease_id: lease.leaseId,
  hosts: lease.hosts,
  domains: lease.domains,
  largest_share: lease.largestShare,
  unlabelled: lease.unlabelled,
});

export const reportBody = ({ request, zones, kinds, leases }: CapacityReport) => ({
  capacity: {
    start: requestDate(request.start),
    end: requestDate(request.end),
    step_minutes: request.stepMinutes,
    failure_domain: request.failureDomain,
    pools: [...zones.flatMap((zone) => zoneBodies(zone, request.requestMinutes)), ...kinds.map(kindPoolBody)],
    ...(leases === null ? {} : { leases: leases.map(leaseBody) }),
  },
});
