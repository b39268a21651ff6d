import type { DomainEvent } from '../shared/decider.js';
import type { HostReplacement } from './lease.commands.js';
import type { EffectRecord, EndReason, LeaseEventIds, LeasePhase, Leftover, Reservation } from './lease.types.js';

export type LeaseCreated = DomainEvent<
  'Lease.Created',
  {
    readonly leaseId: string;
    readonly name: string;
    readonly projectId: string;
    readonly userId: string;
    readonly trustId: string | null;
    readonly startDate: string;
    readonly endDate: string;
    readonly beforeEndDate: string | null;
    readonly reservations: readonly Reservation[];
    readonly eventIds: LeaseEventIds;
    readonly createdAt: string;
  }
>;
export type LeaseRenamed = DomainEvent<'Lease.Renamed', { readonly leaseId: string; readonly name: string; readonly renamedAt: string }>;
export type LeaseRescheduled = DomainEvent<
  'Lease.Rescheduled',
  {
    readonly leaseId: string;
    readonly startDate: string;
    readonly endDate: string;
    readonly beforeEndDate: string | null;
    readonly rescheduledAt: string;
  }
>;
export type ReservationChanged = DomainEvent<
  'Reservation.Changed',
  { readonly leaseId: string; readonly reservation: Reservation; readonly changedAt: string }
>;
export type ReservationEffectsApplied = DomainEvent<
  'Reservation.EffectsApplied',
  {
    readonly leaseId: string;
    readonly reservationId: string;
    readonly phase: LeasePhase;
    readonly effects: readonly EffectRecord[];
    readonly at: string;
  }
>;
export type ReservationEffectsFailed = DomainEvent<
  'Reservation.EffectsFailed',
  {
    readonly leaseId: string;
    readonly reservationId: string;
    readonly phase: LeasePhase;
    readonly error: string;
    readonly effects: readonly EffectRecord[];
    readonly at: string;
  }
>;
/** The cloud caught up with a change of an active reservation (change number `sequence`). */
export type ReservationUpdateApplied = DomainEvent<
  'Reservation.UpdateApplied',
  {
    readonly leaseId: string;
    readonly reservationId: string;
    readonly sequence: number;
    readonly effects: readonly EffectRecord[];
    readonly at: string;
  }
>;
export type ReservationUpdateFailed = DomainEvent<
  'Reservation.UpdateFailed',
  {
    readonly leaseId: string;
    readonly reservationId: string;
    readonly sequence: number;
    readonly error: string;
    readonly effects: readonly EffectRecord[];
    readonly at: string;
  }
>;
/** The cloud had drifted from what the ledger expects for an active reservation; the listed steps put it back. */
export type ReservationDriftRepaired = DomainEvent<
  'Reservation.DriftRepaired',
  { readonly leaseId: string; readonly reservationId: string; readonly effects: readonly EffectRecord[]; readonly at: string }
>;
export type ReservationReconciliationFailed = DomainEvent<
  'Reservation.ReconciliationFailed',
  {
    readonly leaseId: string;
    readonly reservationId: string;
    readonly error: string;
    readonly effects: readonly EffectRecord[];
    readonly at: string;
  }
>;
/**
 * Hosts of the reservation went down: `replacements` took their place (booked on their calendars
 * in the same append), `unhealedHostIds` are still held for want of a replacement. Upstream's
 * flags follow: missing_resources while something is unhealed, resources_changed once an active
 * reservation's hosts changed (both stay set, as upstream's do).
 */
export type ReservationHealed = DomainEvent<
  'Reservation.Healed',
  {
    readonly leaseId: string;
    readonly reservation: Reservation;
    readonly replacements: readonly HostReplacement[];
    readonly unhealedHostIds: readonly string[];
    readonly missingResources: boolean;
    readonly resourcesChanged: boolean;
    readonly at: string;
  }
>;
/**
 * A preemptible server (LEASEHOLD_PREEMPTIBLE) ran on a host the reservation took: it was asked to shut
 * down (`stopped`: it was SHUTOFF within the grace period) and then deleted, before the host moved.
 */
export type LeasePreemptibleServerReaped = DomainEvent<
  'Lease.PreemptibleServerReaped',
  {
    readonly leaseId: string;
    readonly reservationId: string;
    readonly hostId: string;
    /** Nova's compute service host. */
    readonly host: string;
    readonly serverId: string;
    readonly projectId: string;
    /** The server's flavor name. */
    readonly flavor: string;
    readonly stopped: boolean;
    readonly at: string;
  }
>;
type PhaseEvent<Type extends string> = DomainEvent<Type, { readonly leaseId: string; readonly at: string }>;
type PhaseFailure<Type extends string> = DomainEvent<Type, { readonly leaseId: string; readonly at: string; readonly reason: string }>;

export type LeaseStartRequested = PhaseEvent<'Lease.StartRequested'>;
export type LeaseStarted = PhaseEvent<'Lease.Started'>;
export type LeaseStartFailed = PhaseFailure<'Lease.StartFailed'>;
export type LeaseBeforeEndRequested = PhaseEvent<'Lease.BeforeEndRequested'>;
export type LeaseBeforeEndCompleted = PhaseEvent<'Lease.BeforeEndCompleted'>;
export type LeaseBeforeEndFailed = PhaseFailure<'Lease.BeforeEndFailed'>;
/** The tenant's reminder (before_end `notify`): recorded with the before-end phase so every outbound channel carries it. */
export type LeaseEndingSoonNotified = DomainEvent<
  'Lease.EndingSoonNotified',
  {
    readonly leaseId: string;
    readonly projectId: string;
    readonly endDate: string;
    readonly reservationIds: readonly string[];
    readonly at: string;
  }
>;
/** An admin's lease admitted although it breaks an operator's guardrail (the freepool headroom): the override, on record. */
export type LeaseGuardrailOverridden = DomainEvent<
  'Lease.GuardrailOverridden',
  {
    readonly leaseId: string;
    readonly rule: 'freepool_headroom';
    readonly zone: string;
    readonly freeHosts: number;
    readonly keep: number;
    /** The first instant of the window short of the rule. */
    readonly instant: string;
    readonly at: string;
  }
>;
/** The reconciler found objects of the ended lease still in the cloud (a new finding: another set than the last). */
export type LeaseLeftoversFound = DomainEvent<
  'Lease.LeftoversFound',
  { readonly leaseId: string; readonly leftovers: readonly Leftover[]; readonly at: string }
>;
/** What the last finding named is gone from the cloud. */
export type LeaseLeftoversCleared = DomainEvent<
  'Lease.LeftoversCleared',
  { readonly leaseId: string; readonly leftovers: readonly Leftover[]; readonly at: string }
>;
export type LeaseEndRequested = DomainEvent<
  'Lease.EndRequested',
  { readonly leaseId: string; readonly at: string; readonly reason: EndReason }
>;
export type LeaseEnded = PhaseEvent<'Lease.Ended'>;
export type LeaseEndFailed = PhaseFailure<'Lease.EndFailed'>;
export type LeaseDeleted = PhaseEvent<'Lease.Deleted'>;

export type LeaseEvent =
  | LeaseCreated
  | LeaseRenamed
  | LeaseRescheduled
  | ReservationChanged
  | ReservationEffectsApplied
  | ReservationEffectsFailed
  | ReservationUpdateApplied
  | ReservationUpdateFailed
  | ReservationDriftRepaired
  | ReservationReconciliationFailed
  | ReservationHealed
  | LeasePreemptibleServerReaped
  | LeaseStartRequested
  | LeaseStarted
  | LeaseStartFailed
  | LeaseBeforeEndRequested
  | LeaseBeforeEndCompleted
  | LeaseBeforeEndFailed
  | LeaseEndingSoonNotified
  | LeaseGuardrailOverridden
  | LeaseLeftoversFound
  | LeaseLeftoversCleared
  | LeaseEndRequested
  | LeaseEnded
  | LeaseEndFailed
  | LeaseDeleted;

export const LEASE_EVENT_TYPES: readonly LeaseEvent['type'][] = [
  'Lease.Created',
  'Lease.Renamed',
  'Lease.Rescheduled',
  'Reservation.Changed',
  'Reservation.EffectsApplied',
  'Reservation.EffectsFailed',
  'Reservation.UpdateApplied',
  'Reservation.UpdateFailed',
  'Reservation.DriftRepaired',
  'Reservation.ReconciliationFailed',
  'Reservation.Healed',
  'Lease.PreemptibleServerReaped',
  'Lease.StartRequested',
  'Lease.Started',
  'Lease.StartFailed',
  'Lease.BeforeEndRequested',
  'Lease.BeforeEndCompleted',
  'Lease.BeforeEndFailed',
  'Lease.EndingSoonNotified',
  'Lease.GuardrailOverridden',
  'Lease.EndRequested',
  'Lease.Ended',
  'Lease.EndFailed',
  'Lease.Deleted',
];
