import type { LeasePhase } from '#domain/index.js';
import type { ImportProblem, ImportedLease, ImportedPhase, ImportedReservation } from './blazar-import.model.js';
import { readable } from './blazar-inventory.mapping.js';
import { DanglingReference, type ReservationRows } from '#plugins/blazar/blazar-reservation.reader.js';
import { UnsupportedReservation, reservationOf } from './blazar-reservation.mapping.js';
import type { BlazarRow, BlazarRows } from './blazar-source.port.js';
import { BlazarValueError, flag, groupBy, instant, instantOrNull, text, textOrNull } from '#plugins/blazar/blazar-values.js';

const PHASE_OF_EVENT: Readonly<Record<string, LeasePhase>> = { start_lease: 'start', before_end_lease: 'before_end', end_lease: 'end' };
const EVENT_STATUSES: readonly ImportedPhase['status'][] = ['UNDONE', 'IN_PROGRESS', 'DONE', 'ERROR'];

const phaseOf = (row: BlazarRow): ImportedPhase => {
  const status = text(row, 'status');
  if (!(EVENT_STATUSES as readonly string[]).includes(status)) throw new BlazarValueError(`event ${text(row, 'id')} has status ${status}`);
  const phase = PHASE_OF_EVENT[text(row, 'event_type')];
  if (phase === undefined) throw new BlazarValueError(`event ${text(row, 'id')} is of type ${text(row, 'event_type')}`);
  return {
    eventId: text(row, 'id'),
    phase,
    status: status as ImportedPhase['status'],
    time: instant(row, 'time'),
    at: instantOrNull(row, 'updated_at') ?? instant(row, 'time'),
  };
};

const phasesOf = (rows: readonly BlazarRow[], leaseId: string): ImportedLease['phases'] => {
  const phases: Record<LeasePhase, ImportedPhase | null> = { start: null, before_end: null, end: null };
  for (const phase of rows.map(phaseOf)) phases[phase.phase] = phase;
  if (phases.start === null || phases.end === null) throw new BlazarValueError(`lease ${leaseId} has no start_lease or no end_lease event`);
  return phases;
};

/** A phase Blazar acted on after another it never began cannot be told as events: the state machine forbids it. */
const checkPhases = ({ leaseId, phases }: ImportedLease): void => {
  const started = phases.start?.status === 'DONE' || phases.start?.status === 'ERROR';
  const acted = (phase: ImportedPhase | null) => phase !== null && phase.status !== 'UNDONE';
  if (!started && (acted(phases.end) || acted(phases.before_end))) {
    throw new BlazarValueError(`lease ${leaseId}: its end or before-end event ran although its start did not`);
  }
};

const reservationsOf = (rows: readonly BlazarRow[], detail: ReservationRows): ImportedReservation[] =>
  rows.map((row) => {
    const { reservation, propertyNames, startEffects } = reservationOf(row, detail);
    return {
      reservation,
      propertyNames,
      startEffects,
      status: textOrNull(row, 'status') ?? 'pending',
      missingResources: flag(row, 'missing_resources'),
      resourcesChanged: flag(row, 'resources_changed'),
      updatedAt: instantOrNull(row, 'updated_at') ?? instant(row, 'created_at'),
    };
  });

const leaseOf = (
  row: BlazarRow,
  reservations: readonly BlazarRow[],
  events: readonly BlazarRow[],
  detail: ReservationRows,
): ImportedLease => {
  const leaseId = text(row, 'id');
  const lease: ImportedLease = {
    leaseId,
    name: text(row, 'name'),
    projectId: text(row, 'project_id'),
    userId: text(row, 'user_id'),
    trustId: textOrNull(row, 'trust_id'),
    startDate: instant(row, 'start_date'),
    endDate: instant(row, 'end_date'),
    status: textOrNull(row, 'status') ?? 'PENDING',
    createdAt: instant(row, 'created_at'),
    phases: phasesOf(events, leaseId),
    reservations: reservationsOf(reservations, detail),
  };
  checkPhases(lease);
  return lease;
};

const problemOf = (error: unknown, leaseId: string): ImportProblem => {
  if (error instanceof DanglingReference) return { kind: 'dangling_reference', leaseId, message: `lease ${leaseId}: ${error.message}` };
  if (error instanceof UnsupportedReservation) return { kind: 'unsupported', leaseId, message: `lease ${leaseId}: ${error.message}` };
  throw error;
};

/** Rows tied to a lease that does not exist: left out, each said. */
const orphans = (groups: ReadonlyMap<string, readonly BlazarRow[]>, leaseIds: ReadonlySet<string>, table: string): ImportProblem[] =>
  [...groups].flatMap(([leaseId, rows]) =>
    leaseIds.has(leaseId)
      ? []
      : rows.map((row): ImportProblem => ({
          kind: 'dangling_reference',
          leaseId: null,
          message: `${table} ${text(row, 'id')} belongs to lease ${leaseId}, which does not exist`,
        })),
  );

export const leasesOf = (rows: BlazarRows, detail: ReservationRows): { leases: ImportedLease[]; problems: ImportProblem[] } => {
  const problems: ImportProblem[] = [];
  const reservations = groupBy(rows.reservations, 'lease_id');
  const events = groupBy(rows.events, 'lease_id');
  const leaseIds = new Set(rows.leases.map((row) => text(row, 'id')));
  problems.push(...orphans(reservations, leaseIds, 'reservation'), ...orphans(events, leaseIds, 'event'));
  const leases = rows.leases.flatMap((row) => {
    const leaseId = text(row, 'id');
    try {
      const lease = readable(problems, `lease ${leaseId}`, leaseId, () =>
        leaseOf(row, reservations.get(leaseId) ?? [], events.get(leaseId) ?? [], detail),
      );
      if (lease === null) return [];
      if (lease.startDate >= lease.endDate) {
        problems.push({
          kind: 'inverted_dates',
          leaseId,
          message: `lease ${leaseId} ends (${lease.endDate}) before it starts (${lease.startDate})`,
        });
        return [];
      }
      return [lease];
    } catch (error) {
      problems.push(problemOf(error, leaseId));
      return [];
    }
  });
  return { leases, problems };
};
