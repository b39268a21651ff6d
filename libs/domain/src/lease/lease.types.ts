/** Blazar's per-reservation before-end action for hosts. */
export type BeforeEndAction = 'default' | 'snapshot' | '';

export const BEFORE_END_ACTIONS: readonly BeforeEndAction[] = ['default', 'snapshot', ''];

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

/** Union of reservation kinds; instance and floating-IP kinds join it later. */
export type Reservation = HostReservation;

export type ResourceType = Reservation['resourceType'];

export const RESOURCE_TYPES: readonly ResourceType[] = ['physical:host'];

/** Ids of Blazar's three scheduled lease events, fixed at creation. */
export interface LeaseEventIds {
  readonly start: string;
  readonly end: string;
  readonly beforeEnd: string;
}

export type LeasePhase = 'start' | 'before_end' | 'end';

/** What an effects adapter reports it did (or would do) to the cloud. */
export type EffectRecord = Readonly<{ operation: string; [detail: string]: unknown }>;

export type ReservationOutcome =
  | { readonly reservationId: string; readonly ok: true; readonly effects: readonly EffectRecord[] }
  | { readonly reservationId: string; readonly ok: false; readonly error: string; readonly effects: readonly EffectRecord[] };

export type PhaseProgress = 'undone' | 'in_progress' | 'done' | 'error';

/** Why a lease's end was requested. */
export type EndReason = 'scheduled' | 'deleted';
