import type { EffectRecord } from '#domain/index.js';
import type { ReservationView, ReservationViewBase } from '#read-model/index.js';
import type { ReservationTypeView } from '../reservation-type.js';
import type { NetworkReservation } from './network.reservation.js';

export interface NetworkReservationView extends ReservationViewBase {
  readonly resource_type: 'network';
  readonly network_name: string;
  readonly network_description: string;
  readonly network_properties: string;
  readonly resource_properties: string;
  readonly before_end: string;
  /** Neutron's id of the network the start created on the segment (Chameleon's column); null until then. */
  readonly network_id: string | null;
  readonly end_action: 'delete_network';
}

declare module '#read-model/reservation-view.js' {
  interface ReservationViewMap {
    network: NetworkReservationView;
  }
}

const END_ACTION = 'delete_network';

/** The Neutron network a view showed, which a change keeps. */
const networkIdOf = (view: ReservationView | null): string | null =>
  view !== null && view.resource_type === 'network' ? view.network_id : null;

/** The network the effects adapter reported creating; `view` itself when it is the one shown. */
const recordNetworkId = (view: NetworkReservationView, effects: readonly EffectRecord[]): NetworkReservationView => {
  let networkId = view.network_id;
  for (const effect of effects)
    if (effect.operation === 'network.create' && typeof effect.network_id === 'string') networkId = effect.network_id;
  return networkId === view.network_id ? view : { ...view, network_id: networkId };
};

/** A network reservation as Chameleon shows it: what was asked, and the Neutron network its start created. */
export const networkView: ReservationTypeView<NetworkReservation, NetworkReservationView> = {
  name: 'NetworkReservation',
  endAction: END_ACTION,
  bookedOn: 'network',
  reservation: (leaseId, r, createdAt, updatedAt, status, flags, previous) => ({
    created_at: createdAt,
    updated_at: updatedAt,
    id: r.id,
    lease_id: leaseId,
    resource_id: r.resourceId,
    resource_type: r.resourceType,
    status,
    missing_resources: flags.missing_resources,
    resources_changed: flags.resources_changed,
    network_name: r.networkName,
    network_description: r.networkDescription,
    network_properties: r.networkProperties,
    resource_properties: r.resourceProperties,
    before_end: r.beforeEnd,
    network_id: networkIdOf(previous),
    end_action: END_ACTION,
  }),
  recordEffects: recordNetworkId,
  graphql: {
    network_name: { type: 'String' },
    network_description: { type: 'String' },
    network_properties: {
      type: 'String',
      description: "Blazar's query over the segment's fields (network_type, physical_network, segment_id).",
    },
    resource_properties: { type: 'String', description: "Blazar's query over the segment's extra capabilities." },
    before_end: { type: 'String' },
    network_id: { type: 'String', nullable: true, description: "Neutron's id of the network the lease's start created; null until then." },
  },
  openapi: {
    network_name: { type: 'string' },
    network_description: { type: 'string' },
    network_properties: { type: 'string' },
    resource_properties: { type: 'string' },
    before_end: { type: 'string' },
    network_id: { type: ['string', 'null'] },
  },
};
