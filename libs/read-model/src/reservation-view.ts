import type { EffectRecord, Reservation, ResourceType } from '#domain/index.js';

export type BlazarReservationStatus = 'pending' | 'active' | 'deleted' | 'error';

/** What every reservation shows, whatever its type: these first, in Blazar's order, and `end_action` last. */
export interface ReservationViewBase {
  readonly created_at: string;
  readonly updated_at: string | null;
  readonly id: string;
  readonly lease_id: string;
  readonly resource_id: string;
  readonly resource_type: ResourceType;
  readonly status: BlazarReservationStatus;
  readonly missing_resources: boolean;
  readonly resources_changed: boolean;
  /**
   * What happens to the tenant's things at the lease's end, stated in every reservation so nobody is
   * surprised by deleted servers (upstream does the same, silently).
   */
  readonly end_action: string;
}

/**
 * Each reservation type module (libs/plugins) adds its `resourceType -> reservation view` entry here by
 * module augmentation, so the lease view holds every type's reservations without the read model naming one.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ReservationViewMap {}

/** A reservation of any registered type, as GET /v1/leases/{id} shows it. */
export type ReservationView = ReservationViewMap[keyof ReservationViewMap];

/** What the monitors flagged on a reservation (upstream's two columns). */
export interface ReservationFlags {
  readonly missing_resources: boolean;
  readonly resources_changed: boolean;
}

/** How the lease view shows the reservations of one type: given to the fold (evolveLeaseViewWith) by the type's module. */
export interface ReservationViewer<R extends Reservation, V extends ReservationViewBase> {
  /**
   * The reservation's view, built field by field in Blazar's order (a replay builds hundreds of thousands: no
   * intermediate object to spread). `createdAt` and `updatedAt` are Blazar timestamps already; `previous` is
   * its view before a change or a healing (null at the lease's creation), for what effects recorded on it: a
   * reservation keeps its type, but the fold trusts history rather than checks it, so it is any type's.
   */
  reservation(
    leaseId: string,
    reservation: R,
    createdAt: string,
    updatedAt: string,
    status: BlazarReservationStatus,
    flags: ReservationFlags,
    previous: ReservationView | null,
  ): V;
  /** The view with what its effects adapter reported doing (a cloud id it shows); `view` itself when nothing shown changed. */
  recordEffects(view: V, effects: readonly EffectRecord[]): V;
}

/** The viewer of each type; the fold hands one only reservations and views of its own type. */
export type ReservationViewers = (type: ResourceType) => ReservationViewer<Reservation, ReservationView>;
