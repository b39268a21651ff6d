import { toBlazarTimestamp } from '#read-model/blazar-format.js';
import type { NetworkSegmentEvent } from './network-segment.events.js';
import type { NetworkCapabilities, NetworkType } from './network-segment.types.js';

/**
 * A network segment as Chameleon's Blazar shows it (its model's `to_dict`, the row's timestamps first as the host
 * view, then its extra capabilities merged in as top-level keys).
 */
export interface NetworkView {
  readonly created_at: string;
  readonly updated_at: string | null;
  readonly id: string;
  readonly network_type: NetworkType;
  readonly physical_network: string | null;
  readonly segment_id: number | null;
  readonly [capability: string]: string | number | null;
}

/** The segment's own fields, in the view's order: no extra capability may be named after one. */
export const NETWORK_VIEW_KEYS: readonly string[] = ['created_at', 'updated_at', 'id', 'network_type', 'physical_network', 'segment_id'];

const OWN_KEYS = new Set(NETWORK_VIEW_KEYS);

/** The extra capabilities a view shows. */
export const viewCapabilities = (view: NetworkView): NetworkCapabilities =>
  Object.fromEntries(Object.entries(view).filter((entry): entry is [string, string] => !OWN_KEYS.has(entry[0])));

const withCapabilities = (view: NetworkView, capabilities: NetworkCapabilities): NetworkView => {
  const own = Object.fromEntries(Object.entries(view).filter(([key]) => OWN_KEYS.has(key))) as NetworkView;
  const extra = Object.fromEntries(Object.entries(capabilities).filter(([key]) => !OWN_KEYS.has(key)));
  return { ...own, ...extra };
};

/** Folds a segment's event into its view; null once unregistered. Bookings leave the view as it is. */
export const evolveNetworkView = (view: NetworkView | null, event: NetworkSegmentEvent): NetworkView | null => {
  switch (event.type) {
    case 'NetworkSegment.Registered': {
      const { networkId, networkType, physicalNetwork, segmentId, capabilities, registeredAt } = event.data;
      const own: NetworkView = {
        created_at: toBlazarTimestamp(registeredAt),
        updated_at: null,
        id: networkId,
        network_type: networkType,
        physical_network: physicalNetwork,
        segment_id: segmentId,
      };
      return withCapabilities(own, capabilities);
    }
    case 'NetworkSegment.Updated': {
      if (view === null) return null;
      const kept = Object.entries(viewCapabilities(view)).filter(([name]) => !event.data.removed.includes(name));
      const capabilities = { ...Object.fromEntries(kept), ...event.data.capabilities };
      return withCapabilities({ ...view, updated_at: toBlazarTimestamp(event.data.updatedAt) }, capabilities);
    }
    case 'NetworkSegment.Unregistered':
      return null;
    case 'NetworkSegment.Booked':
    case 'NetworkSegment.BookingMoved':
    case 'NetworkSegment.BookingReleased':
    case 'NetworkSegment.MaintenanceScheduled':
    case 'NetworkSegment.MaintenanceCancelled':
      return view;
    default: {
      const _never: never = event;
      return view;
    }
  }
};
