import type { FoldableEvent } from '#event-store/event-store.port.js';
import { NetworkEntity, NetworkPropertyEntity, NetworkVersionEntity } from '#read-model/index.js';
import type { NetworkPropertyEvent } from '#plugins/network/network-property.js';
import type { NetworkSegmentEvent } from '#plugins/network/network-segment.events.js';
import { type NetworkView, evolveNetworkView } from '#plugins/network/network-segment.view.js';
import type { BatchRows } from '../batch-rows.js';
import type { Projection } from '../projection.js';
import { keepVersion } from '../versions.js';
import { propertyId } from './properties.projection.js';

type SegmentEvent = Extract<
  NetworkSegmentEvent,
  { type: 'NetworkSegment.Registered' | 'NetworkSegment.Updated' | 'NetworkSegment.Unregistered' }
>;
type NetworksEvent = SegmentEvent | NetworkPropertyEvent;

/** A network capability's id: name-based as a host's, in a namespace of its own (`network` + name), so the two never share one. */
const networkPropertyId = (name: string): string => propertyId(`network\u0000${name}`);

const propertyNamesOf = (event: NetworksEvent): readonly string[] => {
  switch (event.type) {
    case 'NetworkProperty.PrivacyChanged':
      return [event.data.propertyName];
    case 'NetworkSegment.Registered':
    case 'NetworkSegment.Updated':
      return Object.keys(event.data.capabilities);
    case 'NetworkSegment.Unregistered':
      return [];
    default: {
      const _never: never = event;
      return _never;
    }
  }
};

const applySegment = (rows: BatchRows, event: SegmentEvent, position: number): void => {
  const id = event.data.networkId;
  const networks = rows.table(NetworkEntity);
  const row = networks.loaded(id);
  const view = evolveNetworkView((row?.doc ?? null) as NetworkView | null, event);
  if (row !== null && view === row.doc) return;
  if (row !== null) keepVersion(rows, NetworkVersionEntity, row.since, position, { id, sortKey: row.sortKey, doc: row.doc });
  if (view === null) {
    if (row !== null) networks.remove(id);
    return;
  }
  const { network_type: networkType, physical_network: physicalNetwork, segment_id: segmentId } = view;
  // the registration's log position orders the list, the same in a rebuild as live
  networks.put({ id, networkType, physicalNetwork, segmentId, sortKey: row?.sortKey ?? position, doc: view, since: position });
};

/** Capability names are never forgotten, as upstream's resource_properties (and hosts' lh_properties). */
const applyProperties = (rows: BatchRows, event: NetworksEvent): void => {
  const properties = rows.table(NetworkPropertyEntity);
  if (event.type === 'NetworkProperty.PrivacyChanged') {
    const { propertyName: name, private: isPrivate, changedAt } = event.data;
    const row = properties.loaded(name);
    if (row === null) properties.put({ name, id: networkPropertyId(name), private: isPrivate, createdAt: changedAt, updatedAt: changedAt });
    else properties.put({ ...row, private: isPrivate, updatedAt: changedAt });
    return;
  }
  const createdAt =
    event.type === 'NetworkSegment.Registered'
      ? event.data.registeredAt
      : event.type === 'NetworkSegment.Updated'
        ? event.data.updatedAt
        : '';
  for (const name of propertyNamesOf(event)) {
    if (properties.loaded(name) === null) properties.put({ name, id: networkPropertyId(name), private: false, createdAt, updatedAt: null });
  }
};

/** lh_networks (the Blazar document per registered segment, and its past versions) and lh_network_properties. */
export const networksProjection: Projection = {
  name: 'networks',
  canHandle: ['NetworkSegment.Registered', 'NetworkSegment.Updated', 'NetworkSegment.Unregistered', 'NetworkProperty.PrivacyChanged'],
  async preload(rows, events): Promise<void> {
    const typed = events.map((recorded) => ({ type: recorded.type, data: recorded.data }) as NetworksEvent);
    await rows
      .table(NetworkEntity)
      .load(typed.flatMap((event) => (event.type === 'NetworkProperty.PrivacyChanged' ? [] : [event.data.networkId])));
    await rows.table(NetworkPropertyEntity).load(typed.flatMap(propertyNamesOf));
  },
  apply(rows, recorded: FoldableEvent): void {
    const event = { type: recorded.type, data: recorded.data } as NetworksEvent;
    if (event.type !== 'NetworkProperty.PrivacyChanged') applySegment(rows, event, recorded.position);
    applyProperties(rows, event);
  },
};
