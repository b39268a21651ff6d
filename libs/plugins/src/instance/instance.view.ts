import type { EffectRecord } from '#domain/index.js';
import type { ReservationView, ReservationViewBase } from '#read-model/index.js';
import type { ReservationTypeView } from '../reservation-type.js';
import type { InstanceReservation } from './instance.reservation.js';

export interface InstanceReservationView extends ReservationViewBase {
  readonly resource_type: 'virtual:instance' | 'flavor:instance';
  readonly vcpus: number;
  readonly memory_mb: number;
  readonly disk_gb: number;
  readonly amount: number;
  readonly affinity: boolean | null;
  readonly resource_properties: string;
  /** Upstream: the private flavor's id, which is the reservation id. */
  readonly flavor_id: string;
  /** Nova's id of the reservation's aggregate; null until the start created it (upstream: at creation). */
  readonly aggregate_id: number | null;
  readonly server_group_id: string | null;
  readonly end_action: 'delete_servers_using_flavor';
}

declare module '#read-model/reservation-view.js' {
  interface ReservationViewMap {
    'virtual:instance': InstanceReservationView;
    'flavor:instance': InstanceReservationView;
  }
}

const END_ACTION = 'delete_servers_using_flavor';

type CloudIds = Pick<InstanceReservationView, 'aggregate_id' | 'server_group_id'>;

const NO_CLOUD_IDS: CloudIds = { aggregate_id: null, server_group_id: null };

/** The cloud ids a view showed, which a change keeps (none from a view that shows none). */
const cloudIdsOf = (view: ReservationView | null): CloudIds => (view !== null && 'aggregate_id' in view ? view : NO_CLOUD_IDS);

/** The aggregate and server group ids the effects adapter reported creating; `view` itself when they are those it shows. */
const recordCloudIds = (view: InstanceReservationView, effects: readonly EffectRecord[]): InstanceReservationView => {
  let { aggregate_id, server_group_id } = view;
  for (const effect of effects) {
    if (effect.operation === 'aggregate.create' && typeof effect.aggregate_id === 'number') aggregate_id = effect.aggregate_id;
    if (effect.operation === 'server_group.create' && typeof effect.server_group_id === 'string') server_group_id = effect.server_group_id;
  }
  return aggregate_id === view.aggregate_id && server_group_id === view.server_group_id ? view : { ...view, aggregate_id, server_group_id };
};

/**
 * An instance reservation (virtual:instance and flavor:instance alike) as Blazar shows it: the instance size, its
 * private flavor and the cloud ids its start created, which a change keeps; the servers using its flavor go at the end.
 */
export const instanceView: ReservationTypeView<InstanceReservation, InstanceReservationView> = {
  name: 'InstanceReservation',
  endAction: END_ACTION,
  bookedOn: 'host',
  reservation: (leaseId, r, createdAt, updatedAt, status, flags, previous) => {
    const cloud = cloudIdsOf(previous);
    return {
      created_at: createdAt,
      updated_at: updatedAt,
      id: r.id,
      lease_id: leaseId,
      resource_id: r.resourceId,
      resource_type: r.resourceType,
      status,
      missing_resources: flags.missing_resources,
      resources_changed: flags.resources_changed,
      vcpus: r.vcpus,
      memory_mb: r.memoryMb,
      disk_gb: r.diskGb,
      amount: r.amount,
      affinity: r.affinity,
      resource_properties: r.resourceProperties,
      flavor_id: r.id,
      aggregate_id: cloud.aggregate_id,
      server_group_id: cloud.server_group_id,
      end_action: END_ACTION,
    };
  },
  recordEffects: recordCloudIds,
  graphql: {
    vcpus: { type: 'Int' },
    memory_mb: { type: 'Int' },
    disk_gb: { type: 'Int' },
    amount: { type: 'Int' },
    affinity: { type: 'Boolean', nullable: true },
    resource_properties: { type: 'String' },
    flavor_id: { type: 'String' },
    aggregate_id: { type: 'Int', nullable: true },
    server_group_id: { type: 'String', nullable: true },
  },
  openapi: {
    vcpus: { type: 'integer', minimum: 1 },
    memory_mb: { type: 'integer', minimum: 1 },
    disk_gb: { type: 'integer', minimum: 0 },
    amount: { type: 'integer', minimum: 1 },
    affinity: { type: ['boolean', 'null'] },
    resource_properties: { type: 'string' },
    flavor_id: { type: 'string', format: 'uuid', description: "The reservation's private flavor: its id is the reservation id." },
    aggregate_id: { type: ['integer', 'null'], description: "Nova's id of the reservation's aggregate, once the start created it." },
    server_group_id: { type: ['string', 'null'] },
  },
};
