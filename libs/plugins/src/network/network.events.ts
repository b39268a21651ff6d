import type { EventDescriptions, FeedTie } from '../resource-kind.js';
import type { NetworkPropertyEvent } from './network-property.js';
import type { NetworkRegistryEvent } from './network-registry.js';
import type { NetworkSegmentEvent } from './network-segment.events.js';
import { describeSegment } from './network-segment.rules.js';

/** Every event the network kind appends. */
export type NetworkKindEvent = NetworkSegmentEvent | NetworkRegistryEvent | NetworkPropertyEvent;

const segmentFields = {
  network_id: 'networkId',
  network_type: 'networkType',
  physical_network: 'physicalNetwork',
  segment_id: 'segmentId',
} as const;

const bookingFields = {
  network_id: 'networkId',
  reservation_id: 'reservationId',
  lease_id: 'leaseId',
  start_date: 'startDate',
  end_date: 'endDate',
  property_names: 'propertyNames',
} as const;

/** The network kind's public events (docs/events.md): stable types, never renamed; fields only ever added. */
export const NETWORK_EVENTS: EventDescriptions<NetworkKindEvent> = {
  'NetworkSegment.Registered': {
    publicType: 'network_segment.registered',
    summary: (d) => `Network segment ${d.networkId} (${describeSegment(d)}) registered`,
    fields: { ...segmentFields, capabilities: (d) => ({ ...d.capabilities }), registered_at: 'registeredAt' },
  },
  'NetworkSegment.Updated': {
    publicType: 'network_segment.updated',
    summary: (d) => `Extra capabilities of network segment ${d.networkId} updated`,
    fields: { network_id: 'networkId', capabilities: (d) => ({ ...d.capabilities }), removed: 'removed', updated_at: 'updatedAt' },
  },
  'NetworkSegment.Unregistered': {
    publicType: 'network_segment.unregistered',
    summary: (d) => `Network segment ${d.networkId} (${describeSegment(d)}) removed`,
    fields: { ...segmentFields, unregistered_at: 'unregisteredAt' },
  },
  'NetworkSegment.Booked': {
    publicType: 'network_segment.booked',
    summary: (d) => `Network segment ${d.networkId} booked for reservation ${d.reservationId} from ${d.startDate} to ${d.endDate}`,
    fields: bookingFields,
  },
  'NetworkSegment.BookingMoved': {
    publicType: 'network_segment.booking_moved',
    summary: (d) => `Booking of network segment ${d.networkId} for reservation ${d.reservationId} moved to ${d.startDate} to ${d.endDate}`,
    fields: bookingFields,
  },
  'NetworkSegment.BookingReleased': {
    publicType: 'network_segment.booking_released',
    summary: (d) => `Booking of network segment ${d.networkId} for reservation ${d.reservationId} released`,
    fields: { network_id: 'networkId', reservation_id: 'reservationId', lease_id: 'leaseId' },
  },
  'NetworkSegment.MaintenanceScheduled': {
    publicType: 'network_segment.maintenance_scheduled',
    summary: (d) => `Network segment ${d.networkId} in maintenance from ${d.startDate} to ${d.endDate} (window ${d.windowId}): ${d.reason}`,
    fields: {
      network_id: 'networkId',
      window_id: 'windowId',
      start_date: 'startDate',
      end_date: 'endDate',
      reason: 'reason',
      scheduled_at: 'scheduledAt',
    },
  },
  'NetworkSegment.MaintenanceCancelled': {
    publicType: 'network_segment.maintenance_cancelled',
    summary: (d) => `Maintenance window ${d.windowId} of network segment ${d.networkId} cancelled`,
    fields: { network_id: 'networkId', window_id: 'windowId', cancelled_at: 'cancelledAt' },
  },
  'NetworkRegistry.SegmentAdded': {
    publicType: 'network_registry.segment_added',
    summary: (d) => `Network segment ${d.networkId} (${describeSegment(d)}) added to the registry`,
    fields: segmentFields,
  },
  'NetworkRegistry.SegmentRemoved': {
    publicType: 'network_registry.segment_removed',
    summary: (d) => `Network segment ${d.networkId} (${describeSegment(d)}) removed from the registry`,
    fields: segmentFields,
  },
  'NetworkProperty.PrivacyChanged': {
    publicType: 'network_property.privacy_changed',
    summary: (d) => `Network resource property ${d.propertyName} made ${d.private ? 'private' : 'public'}`,
    fields: { property_name: 'propertyName', private: 'private', changed_at: 'changedAt' },
  },
};

/** Bookings name their lease (moves too); the registry, capabilities, properties and maintenance are operators' business. */
export const NETWORK_TIES: { readonly [T in NetworkKindEvent['type']]: FeedTie } = {
  'NetworkSegment.Registered': 'none',
  'NetworkSegment.Updated': 'none',
  'NetworkSegment.Unregistered': 'none',
  'NetworkSegment.Booked': 'lease',
  'NetworkSegment.BookingMoved': 'lease',
  'NetworkSegment.BookingReleased': 'lease',
  'NetworkSegment.MaintenanceScheduled': 'none',
  'NetworkSegment.MaintenanceCancelled': 'none',
  'NetworkRegistry.SegmentAdded': 'none',
  'NetworkRegistry.SegmentRemoved': 'none',
  'NetworkProperty.PrivacyChanged': 'none',
};
