import type { CalendarFact, ResourceKind } from '../resource-kind.js';
import { NETWORK_EVENTS, NETWORK_TIES } from './network.events.js';
import { NETWORK_PROPERTY_CATEGORY, type NetworkPropertyEvent, networkPropertyDecider } from './network-property.js';
import { NETWORK_REGISTRY_STREAM, type NetworkRegistryEvent, networkRegistryDecider } from './network-registry.js';
import type { NetworkSegmentCommand } from './network-segment.commands.js';
import { networkSegmentDecider } from './network-segment.decide.js';
import { NETWORK_BOOKING_EVENT_TYPES, type NetworkSegmentEvent } from './network-segment.events.js';
import type { NetworkSegmentState } from './network-segment.state.js';
import { NETWORK_CATEGORY, type NetworkBooking, networkStream } from './network-segment.types.js';
import { type NetworkSnapshot, networkSnapshot } from './network-snapshot.js';

type OtherEvent = NetworkRegistryEvent | NetworkPropertyEvent;

const fact = (event: NetworkSegmentEvent): CalendarFact | null => {
  switch (event.type) {
    case 'NetworkSegment.Booked':
    case 'NetworkSegment.BookingMoved': {
      const { networkId, reservationId, leaseId, startDate, endDate } = event.data;
      const did = event.type === 'NetworkSegment.Booked' ? 'booked' : 'moved';
      return { did, resourceId: networkId, reservationId, leaseId, startDate, endDate };
    }
    case 'NetworkSegment.BookingReleased':
      return { did: 'released', resourceId: event.data.networkId, reservationId: event.data.reservationId, leaseId: event.data.leaseId };
    case 'NetworkSegment.Registered':
    case 'NetworkSegment.Updated':
    case 'NetworkSegment.Unregistered':
    case 'NetworkSegment.MaintenanceScheduled':
    case 'NetworkSegment.MaintenanceCancelled':
      return null;
    default: {
      const _never: never = event;
      return null;
    }
  }
};

const capabilityNames = (event: NetworkSegmentEvent): readonly string[] =>
  event.type === 'NetworkSegment.Registered' || event.type === 'NetworkSegment.Updated' ? Object.keys(event.data.capabilities) : [];

/** Network segments (VLAN tags and the like, Chameleon's `network` resource): the kind a `network` reservation books. */
export const networkSegments: ResourceKind<
  'network',
  NetworkSegmentState,
  NetworkSegmentCommand,
  NetworkSegmentEvent,
  NetworkBooking,
  NetworkSnapshot,
  OtherEvent,
  'network' | 'network_property'
> = {
  kind: 'network',
  category: NETWORK_CATEGORY,
  stream: networkStream,
  idField: 'networkId',
  decider: networkSegmentDecider,
  calendar: {
    bookings: (state) => (state.status === 'Registered' ? state.bookings : null),
    withBookings: (state, bookings) => (state.status === 'Registered' ? { ...state, bookings } : state),
    recalled: (booking) => ({ ...booking, propertyNames: [] }),
    book: ({ leaseId, reservationId, startDate, endDate, propertyNames }, cleaningTimeMinutes) => ({
      type: 'BookNetworkSegment',
      data: { leaseId, reservationId, startDate, endDate, propertyNames, cleaningTimeMinutes },
    }),
    move: ({ reservationId, startDate, endDate, propertyNames }, cleaningTimeMinutes) => ({
      type: 'MoveNetworkSegmentBooking',
      data: { reservationId, startDate, endDate, propertyNames, cleaningTimeMinutes },
    }),
    release: (reservationId) => ({ type: 'ReleaseNetworkSegmentBooking', data: { reservationId } }),
    events: NETWORK_BOOKING_EVENT_TYPES,
    fact,
    snapshot: networkSnapshot,
  },
  maintenance: {
    windows: (state) => (state.status === 'Registered' ? state.maintenance : null),
    schedule: (data) => ({ type: 'ScheduleNetworkSegmentMaintenance', data }),
    cancel: (data) => ({ type: 'CancelNetworkSegmentMaintenance', data }),
  },
  capacity: {
    group: (state) =>
      state.status === 'Registered'
        ? [
            ['network_type', state.networkType],
            ['physical_network', state.physicalNetwork],
          ]
        : null,
  },
  registry: { stream: NETWORK_REGISTRY_STREAM, fold: networkRegistryDecider },
  properties: {
    category: NETWORK_PROPERTY_CATEGORY,
    fold: networkPropertyDecider,
    namesOf: capabilityNames,
  },
  events: NETWORK_EVENTS,
  ties: NETWORK_TIES,
  subjects: [
    { category: NETWORK_CATEGORY, subject: 'network', field: 'network_id', path: 'networks' },
    { category: 'networkregistry', subject: 'network', field: 'network_id', path: 'networks' },
    { category: NETWORK_PROPERTY_CATEGORY, subject: 'network_property', field: 'property_name', path: 'network-properties' },
  ],
};
