export type { Reservation, ResourceType } from './reservation-type-map.js';

/** What of an ended lease's can still be in the cloud. */
export const LEFTOVER_KINDS = ['server', 'aggregate', 'flavor', 'floating_ip', 'network'] as const;
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
