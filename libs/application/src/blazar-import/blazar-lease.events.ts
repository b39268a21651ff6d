import type { LeaseEvent, LeasePhase } from '#domain/index.js';
import type { ImportedLease, ImportedPhase, ImportedReservation } from './blazar-import.model.js';
import { type Caused, nameBasedId, sourceRow } from './blazar-import.appends.js';

/** What Blazar says went wrong, where the service would record the cloud's error. */
const FAILED_IN_BLAZAR = 'failed in Blazar before the import';

const caused = (event: LeaseEvent, causation: string): Caused => ({ event, causation });

/** The outcome of a phase for each reservation, as the reactor records it: a reservation Blazar left in error failed. */
const outcomes = (lease: ImportedLease, phase: LeasePhase, at: string, failed: boolean): Caused[] =>
  lease.reservations.map(({ reservation, status, startEffects }) => {
    const base = { leaseId: lease.leaseId, reservationId: reservation.id, phase, at };
    const effects = phase === 'start' ? startEffects : [];
    const event: LeaseEvent =
      failed && status === 'error'
        ? { type: 'Reservation.EffectsFailed', data: { ...base, error: FAILED_IN_BLAZAR, effects } }
        : { type: 'Reservation.EffectsApplied', data: { ...base, effects } };
    return caused(event, sourceRow('reservations', reservation.id));
  });

const PHASE_EVENTS = {
  start: { requested: 'Lease.StartRequested', ok: 'Lease.Started', failed: 'Lease.StartFailed', effects: true },
  before_end: { requested: 'Lease.BeforeEndRequested', ok: 'Lease.BeforeEndCompleted', failed: 'Lease.BeforeEndFailed', effects: false },
  end: { requested: 'Lease.EndRequested', ok: 'Lease.Ended', failed: 'Lease.EndFailed', effects: true },
} as const;

/** The events that bring the lease to where Blazar's event row says the phase stands. */
const phaseEvents = (lease: ImportedLease, imported: ImportedPhase | null): Caused[] => {
  if (imported === null || imported.status === 'UNDONE') return [];
  const { leaseId } = lease;
  const { phase, at, eventId, status } = imported;
  const names = PHASE_EVENTS[phase];
  const cause = sourceRow('events', eventId);
  const requested = (
    phase === 'end'
      ? { type: names.requested, data: { leaseId, at, reason: 'scheduled' } }
      : { type: names.requested, data: { leaseId, at } }
  ) as LeaseEvent;
  if (status === 'IN_PROGRESS') return [caused(requested, cause)];
  const failed = status === 'ERROR';
  const effects = names.effects ? outcomes(lease, phase, at, failed) : [];
  const result = (
    failed
      ? { type: names.failed, data: { leaseId, at, reason: `${phase} ${FAILED_IN_BLAZAR}` } }
      : { type: names.ok, data: { leaseId, at } }
  ) as LeaseEvent;
  return [caused(requested, cause), ...effects, caused(result, cause)];
};

/** Upstream's degraded flags, as healing records them (nothing replaced: Blazar's allocations are kept as they are). */
const healedEvents = (lease: ImportedLease): Caused[] =>
  lease.reservations
    .filter((r) => r.missingResources || r.resourcesChanged)
    .map((r: ImportedReservation) =>
      caused(
        {
          type: 'Reservation.Healed',
          data: {
            leaseId: lease.leaseId,
            reservation: r.reservation,
            replacements: [],
            unhealedHostIds: [],
            missingResources: r.missingResources,
            resourcesChanged: r.resourcesChanged,
            at: r.updatedAt,
          },
        },
        sourceRow('reservations', r.reservation.id),
      ),
    );

export const leaseCreated = (lease: ImportedLease): Caused => {
  const { leaseId, name, projectId, userId, trustId, startDate, endDate, createdAt, phases } = lease;
  const eventIds = {
    start: phases.start?.eventId ?? nameBasedId(`${leaseId} start_lease`),
    end: phases.end?.eventId ?? nameBasedId(`${leaseId} end_lease`),
    beforeEnd: phases.before_end?.eventId ?? nameBasedId(`${leaseId} before_end_lease`),
  };
  const data = {
    leaseId,
    name,
    projectId,
    userId,
    trustId,
    startDate,
    endDate,
    beforeEndDate: phases.before_end?.time ?? null,
    reservations: lease.reservations.map((r) => r.reservation),
    eventIds,
    createdAt,
  };
  return caused({ type: 'Lease.Created', data }, sourceRow('leases', leaseId));
};

/** After its creation, the lease's life as Blazar's event rows tell it: start, the degraded flags, before-end, end. */
export const leaseLife = (lease: ImportedLease): Caused[] => [
  ...phaseEvents(lease, lease.phases.start),
  ...healedEvents(lease),
  ...phaseEvents(lease, lease.phases.before_end),
  ...phaseEvents(lease, lease.phases.end),
];
