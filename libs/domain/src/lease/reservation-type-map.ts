/**
 * Each reservation type module (libs/plugins) adds its `resourceType -> reservation state` entry here by
 * module augmentation, so the domain decides over every type's reservations without importing one.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ReservationTypeMap {}

/** A reservation of any registered type, as the lease records it. */
export type Reservation = ReservationTypeMap[keyof ReservationTypeMap];

export type ResourceType = Reservation['resourceType'];

/** What every type's reservation has: what generic code (the lease decider, the folds) reads of one. */
export interface ReservationBase {
  readonly id: string;
  /** Blazar's id of the plugin-specific row; kept for wire compatibility. */
  readonly resourceId: string;
  readonly resourceType: string;
}
