/**
 * Test-only: one plausible stored event of every type the log can hold, for a subject id of the test's
 * choosing. The mapped type makes the compiler refuse a new event type until it has a sample here, so the
 * outbound channels' tests cover every type (docs/events.md) without a workload reaching each.
 */
import type { InternalEvent } from '../../history/event-catalogue.js';

/** The audit log is a store of its own; its refusals never reach the log the publisher reads. */
export type PublishedType = Exclude<InternalEvent['type'], 'Audit.WriteRefused'>;
type DataOf<T extends PublishedType> = Extract<InternalEvent, { type: T }>['data'];

interface Sample<T extends PublishedType> {
  readonly stream: (id: string) => string;
  readonly data: (id: string) => DataOf<T>;
}

const AT = '2030-01-01T10:00:00.000Z';
const END = '2030-01-01T18:00:00.000Z';
const lease = (id: string): string => `lease-${id}`;
const host = (id: string): string => `host-${id}`;
const leaseRequest = (id: string): string => `leaserequest-${id}`;
const requestOwner = (id: string) => ({ requestId: id, projectId: 'project-1', userId: 'user-1' });
const floatingIp = (id: string): string => `floatingip-${id}`;
const network = (id: string): string => `network-${id}`;
const segment = (id: string) => ({ networkId: id, networkType: 'vlan', physicalNetwork: 'physnet1', segmentId: 1234 }) as const;
const networkHold = (id: string) => ({
  networkId: id,
  reservationId: 'res-1',
  leaseId: 'lease-x',
  startDate: AT,
  endDate: END,
  propertyNames: [],
});
const effects = [{ operation: 'sample', target: 'compute-1' }];
const hostReservation = (id: string) =>
  ({
    id: `res-${id}`,
    resourceId: `rid-${id}`,
    resourceType: 'physical:host',
    min: 1,
    max: 1,
    hypervisorProperties: '',
    resourceProperties: '',
    beforeEnd: 'default',
    hostIds: ['7'],
  }) as const;
const phase = (id: string) => ({ leaseId: id, at: AT });
const failure = (id: string) => ({ leaseId: id, at: AT, reason: 'res-1: boom' });
const hostInfo = {
  hypervisorHostname: 'compute-1',
  serviceName: 'compute-1',
  vcpus: 8,
  memoryMb: 16384,
  localGb: 100,
  cpuInfo: '{}',
  hypervisorType: 'QEMU',
  hypervisorVersion: 1,
  availabilityZone: 'nova',
};
const slots = { count: 2, vcpus: 1, memoryMb: 512, diskGb: 1 };
const hold = (id: string) => ({ hostId: id, reservationId: 'res-1', leaseId: 'lease-x', startDate: AT, endDate: END, propertyNames: [] });
const move = (id: string) => ({ hostId: id, reservationId: 'res-1', startDate: AT, endDate: END, propertyNames: [] });

export const PUBLISHED_SAMPLES: { readonly [T in PublishedType]: Sample<T> } = {
  'LeaseRequest.Submitted': {
    stream: leaseRequest,
    data: (id) => ({
      ...requestOwner(id),
      name: `request ${id}`,
      reservations: [{ resourceType: 'physical:host', values: { min: 1, max: 1 } }],
      durationMinutes: 60,
      notBefore: AT,
      startBy: END,
      submittedAt: AT,
    }),
  },
  'LeaseRequest.Admitted': { stream: leaseRequest, data: (id) => ({ ...requestOwner(id), leaseId: 'lease-x', admittedAt: AT }) },
  'LeaseRequest.Withdrawn': { stream: leaseRequest, data: (id) => ({ ...requestOwner(id), withdrawnAt: AT }) },
  'Lease.Created': {
    stream: lease,
    data: (id) => ({
      leaseId: id,
      name: `lease ${id}`,
      projectId: 'project-1',
      userId: 'user-1',
      trustId: null,
      startDate: AT,
      endDate: END,
      beforeEndDate: null,
      reservations: [hostReservation(id)],
      eventIds: { start: 'e1', end: 'e2', beforeEnd: 'e3' },
      createdAt: AT,
    }),
  },
  'Lease.Renamed': { stream: lease, data: (id) => ({ leaseId: id, name: 'renamed', renamedAt: AT }) },
  'Lease.Rescheduled': {
    stream: lease,
    data: (id) => ({ leaseId: id, startDate: AT, endDate: END, beforeEndDate: null, rescheduledAt: AT }),
  },
  'Reservation.Changed': { stream: lease, data: (id) => ({ leaseId: id, reservation: hostReservation(id), changedAt: AT }) },
  'Reservation.EffectsApplied': {
    stream: lease,
    data: (id) => ({ leaseId: id, reservationId: `res-${id}`, phase: 'start', effects, at: AT }),
  },
  'Reservation.EffectsFailed': {
    stream: lease,
    data: (id) => ({ leaseId: id, reservationId: `res-${id}`, phase: 'end', error: 'boom', effects, at: AT }),
  },
  'Reservation.UpdateApplied': { stream: lease, data: (id) => ({ leaseId: id, reservationId: `res-${id}`, sequence: 1, effects, at: AT }) },
  'Reservation.UpdateFailed': {
    stream: lease,
    data: (id) => ({ leaseId: id, reservationId: `res-${id}`, sequence: 2, error: 'boom', effects, at: AT }),
  },
  'Lease.PreemptibleServerReaped': {
    stream: lease,
    data: (id) => ({
      leaseId: id,
      reservationId: `res-${id}`,
      hostId: '7',
      host: 'compute-1',
      serverId: `server-${id}`,
      projectId: 'project-2',
      flavor: 'preemptible.small',
      stopped: true,
      at: AT,
    }),
  },
  'Reservation.DriftRepaired': { stream: lease, data: (id) => ({ leaseId: id, reservationId: `res-${id}`, effects, at: AT }) },
  'Reservation.ReconciliationFailed': {
    stream: lease,
    data: (id) => ({ leaseId: id, reservationId: `res-${id}`, error: 'boom', effects, at: AT }),
  },
  'Reservation.Healed': {
    stream: lease,
    data: (id) => ({
      leaseId: id,
      reservation: hostReservation(id),
      replacements: [{ hostId: '7', by: ['8'] }],
      unhealedHostIds: [],
      missingResources: false,
      resourcesChanged: true,
      at: AT,
    }),
  },
  'Lease.StartRequested': { stream: lease, data: phase },
  'Lease.GuardrailOverridden': {
    stream: lease,
    data: (id) => ({ leaseId: id, rule: 'freepool_headroom', zone: 'nova', freeHosts: 1, keep: 2, instant: AT, at: AT }),
  },
  'Lease.LeftoversFound': {
    stream: lease,
    data: (id) => ({ leaseId: id, leftovers: [{ reservationId: `res-${id}`, kind: 'aggregate', id: `res-${id}` }], at: AT }),
  },
  'Lease.LeftoversCleared': {
    stream: lease,
    data: (id) => ({ leaseId: id, leftovers: [{ reservationId: `res-${id}`, kind: 'server', id: 'server-1' }], at: AT }),
  },
  'Lease.EndingSoonNotified': {
    stream: lease,
    data: (id) => ({ leaseId: id, projectId: 'project-1', endDate: END, reservationIds: [`res-${id}`], at: AT }),
  },
  'Lease.Started': { stream: lease, data: phase },
  'Lease.StartFailed': { stream: lease, data: failure },
  'Lease.BeforeEndRequested': { stream: lease, data: phase },
  'Lease.BeforeEndCompleted': { stream: lease, data: phase },
  'Lease.BeforeEndFailed': { stream: lease, data: failure },
  'Lease.EndRequested': { stream: lease, data: (id) => ({ leaseId: id, at: AT, reason: 'scheduled' }) },
  'Lease.Ended': { stream: lease, data: phase },
  'Lease.EndFailed': { stream: lease, data: failure },
  'Lease.Deleted': { stream: lease, data: phase },

  'Host.Registered': { stream: host, data: (id) => ({ hostId: id, info: hostInfo, capabilities: { rack: 'r1' }, registeredAt: AT }) },
  'Host.CapabilitiesUpdated': { stream: host, data: (id) => ({ hostId: id, capabilities: { rack: 'r2' }, updatedAt: AT }) },
  'Host.ReservableChanged': { stream: host, data: (id) => ({ hostId: id, reservable: false, reason: 'maintenance', changedAt: AT }) },
  'Host.MaintenanceScheduled': {
    stream: host,
    data: (id) => ({
      hostId: id,
      windowId: 'mw-1',
      startDate: AT,
      endDate: '2030-01-02T00:00:00.000Z',
      reason: 'firmware',
      scheduledAt: AT,
    }),
  },
  'Host.MaintenanceCancelled': { stream: host, data: (id) => ({ hostId: id, windowId: 'mw-1', cancelledAt: AT }) },
  'Host.Unregistered': { stream: host, data: (id) => ({ hostId: id, hypervisorHostname: 'compute-1', unregisteredAt: AT }) },
  'Host.Booked': { stream: host, data: hold },
  'Host.SlotsBooked': { stream: host, data: (id) => ({ ...hold(id), slots }) },
  'Host.BookingMoved': { stream: host, data: move },
  'Host.SlotsMoved': { stream: host, data: (id) => ({ ...move(id), slots }) },
  'Host.BookingReleased': { stream: host, data: (id) => ({ hostId: id, reservationId: 'res-1', leaseId: 'lease-x' }) },
  'Host.WentDown': { stream: host, data: (id) => ({ hostId: id, reasons: ['service_down'], source: 'polling', observedAt: AT }) },
  'Host.DownReasonsChanged': {
    stream: host,
    data: (id) => ({ hostId: id, reasons: ['disabled'], source: 'notification', observedAt: AT }),
  },
  'Host.CameUp': { stream: host, data: (id) => ({ hostId: id, source: 'polling', observedAt: AT }) },
  'Host.Enrolled': { stream: host, data: (id) => ({ hostId: id, effects, enrolledAt: AT }) },
  'Host.EnrollmentFailed': { stream: host, data: (id) => ({ hostId: id, error: 'boom', effects, failedAt: AT }) },
  'Host.Unenrolled': { stream: host, data: (id) => ({ hostId: id, effects, unenrolledAt: AT }) },
  'Host.UnenrollmentFailed': { stream: host, data: (id) => ({ hostId: id, error: 'boom', effects, failedAt: AT }) },

  'HostActivity.InstanceNotified': {
    stream: (id) => `hostactivity-${id}`,
    data: (id) => ({
      hostId: id,
      eventType: 'instance.create.end',
      instanceId: 'vm-1',
      projectId: 'project-1',
      flavorId: null,
      state: 'active',
      occurredAt: AT,
      messageId: `m-${id}`,
    }),
  },
  'HostActivity.AggregateNotified': {
    stream: (id) => `hostactivity-${id}`,
    data: (id) => ({
      hostId: id,
      eventType: 'aggregate.add_host.end',
      aggregateUuid: 'agg-1',
      aggregateId: 1,
      aggregateName: 'freepool',
      hosts: ['compute-1'],
      occurredAt: AT,
      messageId: `a-${id}`,
    }),
  },
  'HostRegistry.HostAdded': { stream: () => 'hostregistry-main', data: (id) => ({ hostId: id, hypervisorHostname: `compute-${id}` }) },
  'HostRegistry.HostRemoved': { stream: () => 'hostregistry-main', data: (id) => ({ hostId: id, hypervisorHostname: `compute-${id}` }) },

  'FloatingIp.Registered': {
    stream: floatingIp,
    data: (id) => ({ floatingIpId: id, networkId: 'net-1', subnetId: null, address: '10.0.0.1', registeredAt: AT }),
  },
  'FloatingIp.Unregistered': {
    stream: floatingIp,
    data: (id) => ({ floatingIpId: id, networkId: 'net-1', address: '10.0.0.1', unregisteredAt: AT }),
  },
  'FloatingIp.Booked': {
    stream: floatingIp,
    data: (id) => ({ floatingIpId: id, reservationId: 'res-1', leaseId: 'lease-x', startDate: AT, endDate: END }),
  },
  'FloatingIp.BookingMoved': {
    stream: floatingIp,
    data: (id) => ({ floatingIpId: id, reservationId: 'res-1', startDate: AT, endDate: END }),
  },
  'FloatingIp.BookingReleased': { stream: floatingIp, data: (id) => ({ floatingIpId: id, reservationId: 'res-1', leaseId: 'lease-x' }) },
  'FloatingIp.MaintenanceScheduled': {
    stream: floatingIp,
    data: (id) => ({
      floatingIpId: id,
      windowId: 'mw-1',
      startDate: AT,
      endDate: END,
      reason: 'router swap',
      scheduledAt: AT,
    }),
  },
  'FloatingIp.MaintenanceCancelled': { stream: floatingIp, data: (id) => ({ floatingIpId: id, windowId: 'mw-1', cancelledAt: AT }) },
  'FloatingIpRegistry.Added': {
    stream: () => 'floatingipregistry-main',
    data: (id) => ({ floatingIpId: id, networkId: 'net-1', address: '10.0.0.1' }),
  },
  'FloatingIpRegistry.Removed': {
    stream: () => 'floatingipregistry-main',
    data: (id) => ({ floatingIpId: id, networkId: 'net-1', address: '10.0.0.1' }),
  },

  'NetworkSegment.Registered': {
    stream: network,
    data: (id) => ({ ...segment(id), capabilities: { switch: 's1' }, registeredAt: AT }),
  },
  'NetworkSegment.Updated': {
    stream: network,
    data: (id) => ({ networkId: id, capabilities: { switch: 's2' }, removed: [], updatedAt: AT }),
  },
  'NetworkSegment.Unregistered': { stream: network, data: (id) => ({ ...segment(id), unregisteredAt: AT }) },
  'NetworkSegment.Booked': { stream: network, data: networkHold },
  'NetworkSegment.BookingMoved': { stream: network, data: networkHold },
  'NetworkSegment.BookingReleased': { stream: network, data: (id) => ({ networkId: id, reservationId: 'res-1', leaseId: 'lease-x' }) },
  'NetworkSegment.MaintenanceScheduled': {
    stream: network,
    data: (id) => ({ networkId: id, windowId: 'mw-1', startDate: AT, endDate: END, reason: 'switch upgrade', scheduledAt: AT }),
  },
  'NetworkSegment.MaintenanceCancelled': { stream: network, data: (id) => ({ networkId: id, windowId: 'mw-1', cancelledAt: AT }) },
  'NetworkRegistry.SegmentAdded': { stream: () => 'networkregistry-main', data: segment },
  'NetworkRegistry.SegmentRemoved': { stream: () => 'networkregistry-main', data: segment },
  'NetworkProperty.PrivacyChanged': {
    stream: (id) => `networkproperty-${id}`,
    data: (id) => ({ propertyName: id, private: true, changedAt: AT }),
  },

  'ResourceProperty.PrivacyChanged': {
    stream: (id) => `property-${id}`,
    data: (id) => ({ propertyName: id, private: true, changedAt: AT }),
  },
  'FlavorCatalog.FlavorAdded': {
    stream: () => 'flavorcatalog-main',
    data: (id) => ({
      flavor: {
        id,
        name: `flavor ${id}`,
        vcpus: 1,
        ram: 512,
        disk: 1,
        ephemeral: 0,
        swap: 0,
        rxtxFactor: 1,
        isPublic: true,
        extraSpecs: {},
      },
      addedAt: AT,
    }),
  },
  'FlavorCatalog.FlavorRemoved': {
    stream: () => 'flavorcatalog-main',
    data: (id) => ({ flavorId: id, name: `flavor ${id}`, removedAt: AT }),
  },
  'Freepool.Exhausted': { stream: (id) => `freepool-${id}`, data: (id) => freepoolSample(id, 0) },
  'Freepool.Recovered': { stream: (id) => `freepool-${id}`, data: (id) => freepoolSample(id, 3) },
  'RateCard.Published': {
    stream: (id) => `ratecard-${id}`,
    data: (id) => ({
      name: id,
      version: 1,
      currency: 'EUR',
      effectiveFrom: AT,
      prices: {
        host_hours: '1.5',
        instance_hours: '0',
        vcpu_hours: '0.02',
        memory_mb_hours: '0',
        disk_gb_hours: '0',
        floating_ip_hours: '0.01',
        network_hours: '0.05',
      },
      capabilityPrices: [],
      publishedAt: AT,
    }),
  },
  'Quota.Set': {
    stream: (id) => `quota-${id}`,
    data: (id) => ({
      projectId: id,
      limits: { hosts: 4, vcpus: null, memoryMb: null, floatingIps: 2, networks: 1, hostHoursPerMonth: 100, vcpuHoursPerMonth: null },
      setAt: AT,
    }),
  },
  'Quota.LeaseAdmitted': { stream: (id) => `quota-${id}`, data: (id) => ({ projectId: id, leaseId: `lease-of-${id}`, at: AT }) },
  'FairShare.ShareSet': { stream: (id) => `fairshare-${id}`, data: (id) => ({ projectId: id, shares: 2.5, setAt: AT }) },
  'FairShare.ShareReset': { stream: (id) => `fairshare-${id}`, data: (id) => ({ projectId: id, resetAt: AT }) },
};

function freepoolSample(zone: string, freeHosts: number) {
  return { zone, reservableHosts: 4, freeHosts, threshold: 1, windowStart: AT, windowEnd: '2030-01-02T00:00:00.000Z', observedAt: AT };
}

export const PUBLISHED_TYPES = Object.keys(PUBLISHED_SAMPLES) as PublishedType[];

/** The stream and data of a sample of `type` about subject `id`. */
export const sampleOf = (type: PublishedType, id: string): { readonly streamId: string; readonly data: unknown } => {
  const sample = PUBLISHED_SAMPLES[type] as Sample<PublishedType>;
  return { streamId: sample.stream(id), data: sample.data(id) };
};
