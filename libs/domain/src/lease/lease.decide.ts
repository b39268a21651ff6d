import type { Decider } from '../shared/decider.js';
import { conflict, notFound } from '../shared/errors.js';
import { toMs } from '../shared/interval.js';
import type {
  BeginLeasePhase,
  CompleteLeasePhase,
  CompleteReservationUpdates,
  CreateLease,
  DeleteLease,
  HealReservation,
  LeaseCommand,
  RecordReconciliation,
  UpdateLease,
} from './lease.commands.js';
import type { LeaseEvent } from './lease.events.js';
import { evolveLease } from './lease.evolve.js';
import { checkReservationIds, hasStarted, requireExisting, scheduleForCreate, scheduleForUpdate } from './lease.rules.js';
import { reapedServerEvents } from './lease.preemptible.js';
import { checkReservationChange } from './reservation-change.rules.js';
import { checkReminderDate, endingSoonEvents } from './lease-reminder.rules.js';
import { recordLeftovers } from './lease-leftovers.rules.js';
import { type ExistingLease, type LeaseState, NO_FLAGS, initialLeaseState } from './lease.state.js';
import type { LeasePhase } from './lease.types.js';
import type { ReservationRulesOf } from './reservation-rules.js';

const create = (rulesOf: ReservationRulesOf, { data }: CreateLease, state: LeaseState): LeaseEvent[] => {
  if (state.status !== 'Initial') throw conflict('LEASE_EXISTS', `Lease ${data.leaseId} already exists`);
  const schedule = scheduleForCreate(data, data.minutesBeforeEnd, data.now);
  const { leaseId, name, projectId, userId, trustId, reservations, eventIds, now } = data;
  checkReminderDate(rulesOf, reservations, schedule.beforeEndDate);
  return [
    {
      type: 'Lease.Created',
      data: { leaseId, name, projectId, userId, trustId, ...schedule, reservations, eventIds, createdAt: now },
    },
  ];
};

const update = (rulesOf: ReservationRulesOf, { data }: UpdateLease, state: LeaseState, leaseId: string): LeaseEvent[] => {
  const existing = requireExisting(state, leaseId);
  const { lease } = existing;
  // a reservation sent with new allocations counts as touched, so it never slips through the rename-only path
  const reservationIds = [...new Set([...data.reservationIds, ...data.reservations.map((r) => r.id)])];
  checkReservationIds(lease, reservationIds);
  const schedule = scheduleForUpdate(existing, { ...data, reservationIds }, data.now);
  const events: LeaseEvent[] = [];
  if (data.name !== null && data.name !== lease.name) {
    events.push({ type: 'Lease.Renamed', data: { leaseId, name: data.name, renamedAt: data.now } });
  }
  const moved =
    schedule !== null &&
    (schedule.startDate !== lease.startDate || schedule.endDate !== lease.endDate || schedule.beforeEndDate !== lease.beforeEndDate);
  if (schedule !== null && moved) {
    events.push({ type: 'Lease.Rescheduled', data: { leaseId, ...schedule, rescheduledAt: data.now } });
  }
  for (const reservation of data.reservations) {
    const current = lease.reservations.find((r) => r.id === reservation.id);
    if (current !== undefined) checkReservationChange(rulesOf, current, reservation, hasStarted(existing));
    if (current !== undefined && JSON.stringify(current) !== JSON.stringify(reservation)) {
      events.push({ type: 'Reservation.Changed', data: { leaseId, reservation, changedAt: data.now } });
    }
  }
  const reservations = lease.reservations.map((r) => data.reservations.find((c) => c.id === r.id) ?? r);
  checkReminderDate(rulesOf, reservations, schedule === null ? lease.beforeEndDate : schedule.beforeEndDate);
  return events;
};

const notDue = (phase: LeasePhase, state: ExistingLease): never => {
  throw conflict('LEASE_PHASE_NOT_DUE', `Lease ${state.lease.leaseId} in status ${state.status} cannot begin phase ${phase} now`);
};

const begin = (rulesOf: ReservationRulesOf, { data }: BeginLeasePhase, state: LeaseState, leaseId: string): LeaseEvent[] => {
  const existing = requireExisting(state, leaseId);
  const { lease } = existing;
  const now = toMs(data.now);
  switch (data.phase) {
    case 'start':
      if (existing.status !== 'Pending' || now < toMs(lease.startDate)) return notDue('start', existing);
      return [{ type: 'Lease.StartRequested', data: { leaseId, at: data.now } }];
    case 'before_end':
      if (existing.status !== 'Active' || lease.beforeEnd !== 'undone' || lease.beforeEndDate === null || now < toMs(lease.beforeEndDate)) {
        return notDue('before_end', existing);
      }
      return [{ type: 'Lease.BeforeEndRequested', data: { leaseId, at: data.now } }, ...endingSoonEvents(rulesOf, lease, data.now)];
    case 'end':
      if ((existing.status !== 'Active' && existing.status !== 'StartFailed') || now < toMs(lease.endDate)) return notDue('end', existing);
      return [{ type: 'Lease.EndRequested', data: { leaseId, at: data.now, reason: 'scheduled' } }];
    default: {
      const _never: never = data.phase;
      return _never;
    }
  }
};

const inProgress = (phase: LeasePhase, state: LeaseState): boolean => {
  switch (phase) {
    case 'start':
      return state.status === 'Starting';
    case 'before_end':
      return state.status === 'Active' && state.lease.beforeEnd === 'in_progress';
    case 'end':
      return state.status === 'Ending' || (state.status === 'Deleted' && state.end === 'pending');
    default: {
      const _never: never = phase;
      return _never;
    }
  }
};

const PHASE_RESULT = {
  start: { ok: 'Lease.Started', failed: 'Lease.StartFailed' },
  before_end: { ok: 'Lease.BeforeEndCompleted', failed: 'Lease.BeforeEndFailed' },
  end: { ok: 'Lease.Ended', failed: 'Lease.EndFailed' },
} as const;

const complete = ({ data }: CompleteLeasePhase, state: LeaseState, leaseId: string): LeaseEvent[] => {
  if (!inProgress(data.phase, state)) {
    throw conflict('LEASE_PHASE_NOT_IN_PROGRESS', `Lease ${leaseId} has no ${data.phase} phase in progress`);
  }
  const { phase, now: at } = data;
  const events: LeaseEvent[] = data.outcomes.flatMap((outcome): LeaseEvent[] => [
    ...reapedServerEvents(leaseId, outcome.reservationId, outcome.effects, at),
    outcome.ok
      ? { type: 'Reservation.EffectsApplied', data: { leaseId, reservationId: outcome.reservationId, phase, effects: outcome.effects, at } }
      : {
          type: 'Reservation.EffectsFailed',
          data: { leaseId, reservationId: outcome.reservationId, phase, error: outcome.error, effects: outcome.effects, at },
        },
  ]);
  const failures = data.outcomes.flatMap((outcome) => (outcome.ok ? [] : [`${outcome.reservationId}: ${outcome.error}`]));
  const result = PHASE_RESULT[phase];
  events.push(
    failures.length === 0
      ? { type: result.ok, data: { leaseId, at } }
      : { type: result.failed, data: { leaseId, at, reason: failures.join('; ') } },
  );
  return events;
};

/** Records the cloud's answer to changes of an active lease's reservations; outcomes of superseded changes are dropped. */
const completeUpdates = ({ data }: CompleteReservationUpdates, state: LeaseState, leaseId: string): LeaseEvent[] => {
  const existing = requireExisting(state, leaseId);
  const pending = existing.lease.pendingUpdates;
  const matching = existing.status === 'Active' ? data.updates.filter((u) => pending[u.outcome.reservationId] === u.sequence) : [];
  // one outcome per pending change: a repeated one (same reservation) is dropped
  const current = matching.filter((u, i) => matching.findIndex((o) => o.outcome.reservationId === u.outcome.reservationId) === i);
  if (current.length === 0) throw conflict('UPDATE_NOT_PENDING', `Lease ${leaseId} owes none of these reservation updates`);
  const at = data.now;
  return current.flatMap(({ sequence, outcome }): LeaseEvent[] => {
    const { reservationId, effects } = outcome;
    return [
      ...reapedServerEvents(leaseId, reservationId, effects, at),
      outcome.ok
        ? { type: 'Reservation.UpdateApplied', data: { leaseId, reservationId, sequence, effects, at } }
        : { type: 'Reservation.UpdateFailed', data: { leaseId, reservationId, sequence, error: outcome.error, effects, at } },
    ];
  });
};

/** Only drift (steps that changed the cloud) or a failure is worth an event; a clean check records nothing. */
const reconciled = ({ data }: RecordReconciliation, state: LeaseState, leaseId: string): LeaseEvent[] => {
  const existing = requireExisting(state, leaseId);
  const { outcome, now: at } = data;
  if (existing.status !== 'Active') throw conflict('LEASE_NOT_ACTIVE', `Lease ${leaseId} is not active: nothing to reconcile`);
  if (!existing.lease.reservations.some((r) => r.id === outcome.reservationId)) {
    throw notFound('RESERVATION_NOT_FOUND', `Lease ${leaseId} has no reservation ${outcome.reservationId}`);
  }
  const { reservationId, effects } = outcome;
  if (!outcome.ok)
    return [{ type: 'Reservation.ReconciliationFailed', data: { leaseId, reservationId, error: outcome.error, effects, at } }];
  const drift = effects.filter((effect) => effect.already !== true);
  return drift.length === 0 ? [] : [{ type: 'Reservation.DriftRepaired', data: { leaseId, reservationId, effects: drift, at } }];
};

/**
 * Records a healing the write side worked out: only pending and active leases are healed (a lease
 * starting or ending is retried later), only reservations of a type that heals, every failed host named
 * must be one the reservation held, every replacement one it holds now. Nothing replaced and no flag
 * changed: nothing to record.
 */
const heal = (rulesOf: ReservationRulesOf, { data }: HealReservation, state: LeaseState, leaseId: string): LeaseEvent[] => {
  const existing = requireExisting(state, leaseId);
  if (existing.status !== 'Pending' && existing.status !== 'Active') {
    throw conflict('LEASE_NOT_HEALABLE', `Lease ${leaseId} is ${existing.status}: only pending or active reservations are healed`);
  }
  const { reservation, replacements, unhealedHostIds } = data;
  const current = existing.lease.reservations.find((r) => r.id === reservation.id);
  if (current === undefined) throw notFound('RESERVATION_NOT_FOUND', `Lease ${leaseId} has no reservation ${reservation.id}`);
  const rules = rulesOf(current.resourceType);
  const held = rules.healedHostIds(current);
  const holds = current.resourceType === reservation.resourceType ? rules.healedHostIds(reservation) : null;
  if (held === null || holds === null) {
    throw conflict('RESERVATION_NOT_HEALABLE', `Reservation ${reservation.id} (${current.resourceType}) cannot be healed this way`);
  }
  for (const hostId of [...replacements.map((r) => r.hostId), ...unhealedHostIds]) {
    if (!held.includes(hostId)) throw conflict('HOST_NOT_HELD', `Reservation ${reservation.id} holds no host ${hostId}`);
  }
  for (const { hostId, by } of replacements) {
    if (by.length === 0 || holds.includes(hostId) || by.some((id) => !holds.includes(id))) {
      throw conflict(
        'INVALID_REPLACEMENT',
        `Reservation ${reservation.id}: host ${hostId} is not replaced by ${by.join(', ') || 'nothing'}`,
      );
    }
  }
  const previous = existing.lease.healing[reservation.id] ?? NO_FLAGS;
  const missingResources = previous.missingResources || unhealedHostIds.length > 0;
  const resourcesChanged = previous.resourcesChanged || (existing.status === 'Active' && replacements.length > 0);
  if (replacements.length === 0 && missingResources === previous.missingResources && resourcesChanged === previous.resourcesChanged)
    return [];
  return [
    {
      type: 'Reservation.Healed',
      data: { leaseId, reservation, replacements, unhealedHostIds, missingResources, resourcesChanged, at: data.now },
    },
  ];
};

const remove = ({ data }: DeleteLease, state: LeaseState, leaseId: string): LeaseEvent[] => {
  const existing = requireExisting(state, leaseId);
  if (existing.status === 'Starting' || existing.status === 'Ending') {
    throw conflict(
      'LEASE_BUSY',
      `Lease ${leaseId} is ${existing.status === 'Starting' ? 'STARTING' : 'TERMINATING'}; retry once it is done`,
    );
  }
  const deleted: LeaseEvent = { type: 'Lease.Deleted', data: { leaseId, at: data.now } };
  const started = existing.status === 'Active' || existing.status === 'StartFailed';
  return started ? [{ type: 'Lease.EndRequested', data: { leaseId, at: data.now, reason: 'deleted' } }, deleted] : [deleted];
};

const decide = (rulesOf: ReservationRulesOf, command: LeaseCommand, state: LeaseState): readonly LeaseEvent[] => {
  const { leaseId } = command.data;
  switch (command.type) {
    case 'CreateLease':
      return create(rulesOf, command, state);
    case 'UpdateLease':
      return update(rulesOf, command, state, leaseId);
    case 'BeginLeasePhase':
      return begin(rulesOf, command, state, leaseId);
    case 'CompleteLeasePhase':
      return complete(command, state, leaseId);
    case 'CompleteReservationUpdates':
      return completeUpdates(command, state, leaseId);
    case 'RecordReconciliation':
      return reconciled(command, state, leaseId);
    case 'RecordLeftovers':
      return recordLeftovers(command, state, leaseId);
    case 'HealReservation':
      return heal(rulesOf, command, state, leaseId);
    case 'DeleteLease':
      return remove(command, state, leaseId);
    default: {
      const _never: never = command;
      return _never;
    }
  }
};

/**
 * The lease decider over the reservation types whose rules `rulesOf` gives: libs/plugins builds the one
 * the system runs (its `leaseDecider`) from the registry of type modules.
 */
export const leaseDeciderWith = (rulesOf: ReservationRulesOf): Decider<LeaseState, LeaseCommand, LeaseEvent> => ({
  initialState: initialLeaseState,
  decide: (command, state) => decide(rulesOf, command, state),
  evolve: evolveLease,
});
