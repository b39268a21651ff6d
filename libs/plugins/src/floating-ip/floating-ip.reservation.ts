/** One registered address held by a floating-IP reservation. */
export interface FloatingIpAllocation {
  readonly floatingIpId: string;
  readonly address: string;
}

export interface FloatingIpReservation {
  readonly id: string;
  /** Blazar's id of the plugin-specific row; kept for wire compatibility. */
  readonly resourceId: string;
  readonly resourceType: 'virtual:floatingip';
  readonly networkId: string;
  readonly amount: number;
  readonly requiredFloatingIps: readonly string[];
  /** Sorted by address; exactly `amount` of them. */
  readonly allocations: readonly FloatingIpAllocation[];
}

declare module '#domain/lease/reservation-type-map.js' {
  interface ReservationTypeMap {
    'virtual:floatingip': FloatingIpReservation;
  }
}
