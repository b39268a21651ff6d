/** Slots of one instance reservation carved from one host. */
export interface SlotAllocation {
  readonly hostId: string;
  readonly count: number;
}

/** Blazar's affinity: all instances on one host (true), each on its own host (false), or anywhere (null). */
export type Affinity = boolean | null;

interface InstanceReservationFields {
  readonly id: string;
  /** Blazar's id of the plugin-specific row; kept for wire compatibility. */
  readonly resourceId: string;
  readonly amount: number;
  readonly vcpus: number;
  readonly memoryMb: number;
  readonly diskGb: number;
  readonly affinity: Affinity;
  /** virtual:instance: the request's query; flavor:instance: JSON dump of the source flavor, as upstream. */
  readonly resourceProperties: string;
  /** Sorted by host id; counts sum to `amount`. */
  readonly allocations: readonly SlotAllocation[];
}

export interface VirtualInstanceReservation extends InstanceReservationFields {
  readonly resourceType: 'virtual:instance';
}

export interface FlavorInstanceReservation extends InstanceReservationFields {
  readonly resourceType: 'flavor:instance';
  /** The catalog flavor the reservation was made from (the private flavor's id is the reservation id). */
  readonly sourceFlavorId: string;
  /** The source flavor's extra specs, copied onto the private flavor at start. */
  readonly extraSpecs: Readonly<Record<string, string>>;
}

export type InstanceReservation = VirtualInstanceReservation | FlavorInstanceReservation;

declare module '#domain/lease/reservation-type-map.js' {
  interface ReservationTypeMap {
    'virtual:instance': VirtualInstanceReservation;
    'flavor:instance': FlavorInstanceReservation;
  }
}
