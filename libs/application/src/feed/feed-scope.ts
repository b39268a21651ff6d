import { floatingIpStream, hostStream, leaseStream } from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import type { FeedTie } from '#plugins/resource-kind.js';
import { RESOURCE_KINDS, RESOURCE_KIND_TIES } from '#plugins/resource-kinds.js';
import { type Caller, leaseTarget } from '../caller.js';
import type { InternalEventType } from '../history/event-catalogue.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import type { LeaseOwners } from './lease-owners.js';

/**
 * What ties an event to a project: its lease (`leaseId` in the data), the lease of its reservation
 * (`reservationId`: a booking moved on a host or an address names no lease), the lease request it is about (each of whose
 * events names the request's project and user), or nothing (the registries,
 * hosts' health and Nova activity, the freepool watch, flavors, properties, the audit log: operators' business only).
 * A record over every internal type: a new event is refused by the compiler until it is placed here.
 */
const TIED_BY: { readonly [T in InternalEventType]: FeedTie | 'request' } = {
  // each registered resource kind ties its own events (resource-kinds.ts)
  ...RESOURCE_KIND_TIES,
  'Lease.Created': 'lease',
  'LeaseRequest.Submitted': 'request',
  'LeaseRequest.Admitted': 'request',
  'LeaseRequest.Withdrawn': 'request',
  'Lease.Renamed': 'lease',
  'Lease.Rescheduled': 'lease',
  'Reservation.Changed': 'lease',
  'Reservation.EffectsApplied': 'lease',
  'Reservation.EffectsFailed': 'lease',
  'Reservation.UpdateApplied': 'lease',
  'Reservation.UpdateFailed': 'lease',
  'Reservation.DriftRepaired': 'lease',
  'Reservation.ReconciliationFailed': 'lease',
  'Reservation.Healed': 'lease',
  'Lease.PreemptibleServerReaped': 'lease',
  'Lease.StartRequested': 'lease',
  'Lease.Started': 'lease',
  'Lease.StartFailed': 'lease',
  'Lease.BeforeEndRequested': 'lease',
  'Lease.BeforeEndCompleted': 'lease',
  'Lease.BeforeEndFailed': 'lease',
  'Lease.EndingSoonNotified': 'lease',
  'Lease.GuardrailOverridden': 'lease',
  'Lease.LeftoversFound': 'lease',
  'Lease.LeftoversCleared': 'lease',
  'Lease.EndRequested': 'lease',
  'Lease.Ended': 'lease',
  'Lease.EndFailed': 'lease',
  'Lease.Deleted': 'lease',
  'Host.Booked': 'lease',
  'Host.SlotsBooked': 'lease',
  'Host.BookingReleased': 'lease',
  'Host.BookingMoved': 'reservation',
  'Host.SlotsMoved': 'reservation',
  'FloatingIp.Booked': 'lease',
  'FloatingIp.BookingReleased': 'lease',
  'FloatingIp.MaintenanceScheduled': 'none',
  'FloatingIp.MaintenanceCancelled': 'none',
  'FloatingIp.BookingMoved': 'reservation',
  'Host.Registered': 'none',
  'Host.CapabilitiesUpdated': 'none',
  'Host.ReservableChanged': 'none',
  'Host.MaintenanceScheduled': 'none',
  'Host.MaintenanceCancelled': 'none',
  'Host.Unregistered': 'none',
  'Host.WentDown': 'none',
  'Host.DownReasonsChanged': 'none',
  'Host.CameUp': 'none',
  'Host.Enrolled': 'none',
  'Host.EnrollmentFailed': 'none',
  'Host.Unenrolled': 'none',
  'Host.UnenrollmentFailed': 'none',
  'HostActivity.InstanceNotified': 'none',
  'HostActivity.AggregateNotified': 'none',
  'HostRegistry.HostAdded': 'none',
  'HostRegistry.HostRemoved': 'none',
  'FloatingIp.Registered': 'none',
  'FloatingIp.Unregistered': 'none',
  'FloatingIpRegistry.Added': 'none',
  'FloatingIpRegistry.Removed': 'none',
  'ResourceProperty.PrivacyChanged': 'none',
  'FlavorCatalog.FlavorAdded': 'none',
  'FlavorCatalog.FlavorRemoved': 'none',
  'Audit.WriteRefused': 'none',
  'RateCard.Published': 'none',
  'Quota.Set': 'none',
  'FairShare.ShareSet': 'none',
  'FairShare.ShareReset': 'none',
  'Quota.LeaseAdmitted': 'lease',
  'Freepool.Exhausted': 'none',
  'Freepool.Recovered': 'none',
};

const text = (data: unknown, field: string): string | undefined => {
  const value = (data as Readonly<Record<string, unknown>>)[field];
  return typeof value === 'string' ? value : undefined;
};

/** The lease a catalogued event belongs to, or undefined for an event of no lease (a lease request's is of none yet). */
export const leaseOfEvent = (event: RecordedEvent & { readonly type: InternalEventType }, owners: LeaseOwners): string | undefined => {
  const tie = TIED_BY[event.type];
  switch (tie) {
    case 'lease':
      return text(event.data, 'leaseId');
    case 'reservation': {
      const reservationId = text(event.data, 'reservationId');
      return reservationId === undefined ? undefined : owners.leaseOf(reservationId);
    }
    case 'request':
    case 'none':
      return undefined;
    default: {
      const _never: never = tie;
      return _never;
    }
  }
};

type Catalogued = RecordedEvent & { readonly type: InternalEventType };

/** Whose an event is: the owner of its lease or of its lease request, with the policy rule that lets one read it. */
export interface EventOwner {
  /** What the event is about (`lease:<id>`, `request:<id>`): the feed judges each once. */
  readonly key: string;
  readonly projectId: string;
  readonly userId: string;
  readonly action: string;
}

export const ownerOfEvent = (event: Catalogued, owners: LeaseOwners): EventOwner | undefined => {
  if (TIED_BY[event.type] === 'request') {
    const [requestId, projectId, userId] = ['requestId', 'projectId', 'userId'].map((field) => text(event.data, field));
    if (requestId === undefined || projectId === undefined || userId === undefined) return undefined;
    return { key: `request:${requestId}`, projectId, userId, action: ACTIONS.leaseRequestGet };
  }
  const leaseId = leaseOfEvent(event, owners);
  const owner = leaseId === undefined ? undefined : owners.ownerOf(leaseId);
  return owner === undefined
    ? undefined
    : { key: `lease:${leaseId}`, projectId: owner.projectId, userId: owner.userId, action: ACTIONS.leaseGet };
};

/**
 * Which events the feed shows a caller. Admins see every event; anyone else the events of their own
 * project's leases and lease requests that the policy lets them read (each judged once).
 */
export const feedVisibility = (caller: Caller, owners: LeaseOwners): ((event: Catalogued) => boolean) => {
  if (caller.isAdmin) return () => true;
  const readable = new Map<string, boolean>();
  return (event) => {
    const owner = ownerOfEvent(event, owners);
    if (owner === undefined) return false;
    let allowed = readable.get(owner.key);
    if (allowed === undefined) {
      allowed = owner.projectId === caller.projectId && caller.can(owner.action, leaseTarget(owner));
      readable.set(owner.key, allowed);
    }
    return allowed;
  };
};

const LEASE_STREAM = leaseStream('');
const BOOKING_STREAMS = [hostStream(''), floatingIpStream(''), ...RESOURCE_KINDS.map((kind) => kind.stream(''))];

/**
 * The lease whose history (HistoryQueries.lease) shows an event: every event of its own stream, and
 * its reservations' bookings on hosts, floating IPs and other kinds' resources (a reservation is only ever booked on the
 * resources it was given, which are the streams the history reads).
 */
export const historyLeaseOf = (event: RecordedEvent, owners: LeaseOwners): string | undefined => {
  if (event.streamId.startsWith(LEASE_STREAM)) return event.streamId.slice(LEASE_STREAM.length);
  if (!BOOKING_STREAMS.some((prefix) => event.streamId.startsWith(prefix))) return undefined;
  const reservationId = text(event.data, 'reservationId');
  return reservationId === undefined ? undefined : owners.leaseOf(reservationId);
};
