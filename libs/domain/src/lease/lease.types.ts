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

/** Slots of one instance reservation carved from one host. */
export interface SlotAllocation {
  readonly hostId: string;
  readonly count: number;
}

/** Blazar's affinity: all instances on one host (true), each on its own host (false), or anywhere (null). */
export type Affinity = boolean | null;

interface InstanceReservationFields {
  readonly id: string;
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

/** One registered address held by a floating-IP reservation. */
export interface FloatingIpAllocation {
  readonly floatingIpId: string;
  readonly address: string;
}

export interface FloatingIpReservation {
  readonly id: string;
  readonly resourceId: string;
  readonly resourceType: 'virtual:floatingip';
  readonly networkId: string;
  readonly amount: number;
  readonly requiredFloatingIps: readonly string[];
  /** Sorted by address; exactly `amount` of them. */
  readonly allocations: readonly FloatingIpAllocation[];
}

export type Reservation = HostReservation | VirtualInstanceReservation | FlavorInstanceReservation | FloatingIpReservation;

export type ResourceType = Reservation['resourceType'];

export const RESOURCE_TYPES: readonly ResourceType[] = ['physical:host', 'virtual:instance', 'flavor:instance', 'virtual:floatingip'];

export const isInstanceReservation = (r: Reservation): r is InstanceReservation =>
  r.resourceType === 'virtual:instance' || r.resourceType === 'flavor:instance';

/** Hosts whose calendars carry this reservation (none for floating IPs). */
export const reservedHostIds = (r: Reservation): readonly string[] => {
  switch (r.resourceType) {
    case 'physical:host':
      return r.hostIds;
    case 'virtual:instance':
    case 'flavor:instance':
      return r.allocations.map((a) => a.hostId);
    case 'virtual:floatingip':
      return [];
    default: {
      const _never: never = r;
      return _never;
    }
  }
};

/** Floating IPs whose calendars carry this reservation. */
export const reservedFloatingIpIds = (r: Reservation): readonly string[] =>
  r.resourceType === 'virtual:floatingip' ? r.allocations.map((a) => a.floatingIpId) : [];

/** What of an ended lease's can still be in the cloud. */
export const LEFTOVER_KINDS = ['server', 'aggregate', 'flavor', 'floating_ip'] as const;
export type LeftoverKind = (typeof LEFTOVER_KINDS)[number];

/** One cloud object of a reservation still there after its lease ended (its id or name in the cloud). */
export interface Leftover {
  readonly reservationId: string;
  readonly kind: LeftoverKind;
  readonly id: string;
}

/** Ids of Blazar's three scheduled lease events, fixed at creation. */
export interface LeaseEventIds {
  readonly start: string;
  readonly end: string;
  readonly beforeEnd: string;
}

export type LeasePhase = 'start' | 'before_end' | 'end';

/** When effects run: a lease phase, or 'update' when an active reservation changed (e.g. more instances). */
export type EffectPhase = LeasePhase | 'update';

/** What an effects adapter reports it did (or would do) to the cloud. */
export type EffectRecord = Readonly<{ operation: string; [detail: string]: unknown }>;

export type ReservationOutcome =
  | { readonly reservationId: string; readonly ok: true; readonly effects: readonly EffectRecord[] }
  | { readonly reservationId: string; readonly ok: false; readonly error: string; readonly effects: readonly EffectRecord[] };

export type PhaseProgress = 'undone' | 'in_progress' | 'done' | 'error';

/** Why a lease's end was requested. */
export type EndReason = 'scheduled' | 'deleted';
