import type { ReservationViewBase } from '#read-model/index.js';
import type { ReservationTypeView } from '../reservation-type.js';
import type { FloatingIpReservation } from './floating-ip.reservation.js';

export interface FloatingIpReservationView extends ReservationViewBase {
  readonly resource_type: 'virtual:floatingip';
  readonly network_id: string;
  readonly amount: number;
  readonly required_floatingips: readonly string[];
  readonly end_action: 'release_addresses';
}

declare module '#read-model/reservation-view.js' {
  interface ReservationViewMap {
    'virtual:floatingip': FloatingIpReservationView;
  }
}

const END_ACTION = 'release_addresses';

/** A floating-IP reservation as Blazar shows it: its network, count and required addresses; its addresses are released at the end. */
export const floatingIpView: ReservationTypeView<FloatingIpReservation, FloatingIpReservationView> = {
  name: 'FloatingIpReservation',
  endAction: END_ACTION,
  bookedOn: 'floatingip',
  reservation: (leaseId, r, createdAt, updatedAt, status, flags) => ({
    created_at: createdAt,
    updated_at: updatedAt,
    id: r.id,
    lease_id: leaseId,
    resource_id: r.resourceId,
    resource_type: r.resourceType,
    status,
    missing_resources: flags.missing_resources,
    resources_changed: flags.resources_changed,
    network_id: r.networkId,
    amount: r.amount,
    required_floatingips: r.requiredFloatingIps,
    end_action: END_ACTION,
  }),
  recordEffects: (view) => view,
  graphql: {
    // never null here; nullable so that a selection over both merges with NetworkReservation.network_id, null until its start
    network_id: { type: 'String', nullable: true },
    amount: { type: 'Int' },
    required_floatingips: { type: ['String'] },
  },
  openapi: {
    network_id: { type: 'string' },
    amount: { type: 'integer', minimum: 1 },
    required_floatingips: { type: 'array', items: { type: 'string' } },
  },
};
