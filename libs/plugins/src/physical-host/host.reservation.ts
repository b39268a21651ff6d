/** Blazar's per-reservation before-end action for hosts; `notify` (ours) only reminds the tenant that the lease ends. */
export type BeforeEndAction = 'default' | 'snapshot' | 'notify' | '';

export const BEFORE_END_ACTIONS: readonly BeforeEndAction[] = ['default', 'snapshot', 'notify', ''];

export interface HostReservation {
  readonly id: string;
  /** Blazar's id of the plugin-specific row; kept for wire compatibility. */
  readonly resourceId: string;
  readonly resourceType: 'physical:host';
  readonly min: number;
  readonly max: number;
  readonly hypervisorProperties: string;
  readonly resourceProperties: string;
  readonly beforeEnd: BeforeEndAction;
  readonly hostIds: readonly string[];
}

declare module '#domain/lease/reservation-type-map.js' {
  interface ReservationTypeMap {
    'physical:host': HostReservation;
  }
}
