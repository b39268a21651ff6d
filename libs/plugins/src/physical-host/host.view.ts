import type { ReservationViewBase } from '#read-model/index.js';
import type { ReservationTypeView } from '../reservation-type.js';
import type { HostReservation } from './host.reservation.js';

export interface HostReservationView extends ReservationViewBase {
  readonly resource_type: 'physical:host';
  readonly hypervisor_properties: string;
  readonly resource_properties: string;
  readonly before_end: string;
  readonly min: number;
  readonly max: number;
  readonly end_action: 'delete_servers_on_hosts';
}

declare module '#read-model/reservation-view.js' {
  interface ReservationViewMap {
    'physical:host': HostReservationView;
  }
}

const END_ACTION = 'delete_servers_on_hosts';

/** A host reservation as Blazar shows it: its queries, before-end action and host counts; the servers on its hosts go at the end. */
export const hostView: ReservationTypeView<HostReservation, HostReservationView> = {
  name: 'HostReservation',
  endAction: END_ACTION,
  bookedOn: 'host',
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
    hypervisor_properties: r.hypervisorProperties,
    resource_properties: r.resourceProperties,
    before_end: r.beforeEnd,
    min: r.min,
    max: r.max,
    end_action: END_ACTION,
  }),
  recordEffects: (view) => view,
  graphql: {
    hypervisor_properties: { type: 'String' },
    resource_properties: { type: 'String' },
    before_end: { type: 'String' },
    min: { type: 'Int' },
    max: { type: 'Int' },
  },
  openapi: {
    hypervisor_properties: { type: 'string' },
    resource_properties: { type: 'string' },
    before_end: { type: 'string' },
    min: { type: 'integer', minimum: 1 },
    max: { type: 'integer', minimum: 1 },
  },
};
