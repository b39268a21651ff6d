import {
  type DomainError,
  type LeaseEvent,
  type LeasePhase,
  type Leftover,
  type ReservationOutcome,
  type UpdateOutcome,
  foldEvents,
  isDomainError,
  leaseStream,
} from '#domain/index.js';
import type { AppendRequest } from '#event-store/event-store.port.js';
import { leaseDecider } from '#plugins/lease.decider.js';
import type { ApplicationContext } from '../application-context.js';
import { type AppCommand, appendTo } from '../command.js';
import type { Decision } from '../command-handler.js';
import { type LeaseReactionView, leaseReactionView } from './lease-reaction.view.js';
import { decided, reactionMetadata, requireService } from './reaction.js';
import { deterministicId, idSequence } from './reaction-ids.js';

export type BeginLeasePhaseReaction = AppCommand<'BeginLeasePhase', { readonly leaseId: string; readonly phase: LeasePhase }>;
export type CompleteLeasePhaseReaction = AppCommand<
  'CompleteLeasePhase',
  { readonly leaseId: string; readonly phase: LeasePhase; readonly beginId: string; readonly outcomes: readonly ReservationOutcome[] }
>;
export type CompleteReservationUpdatesReaction = AppCommand<
  'CompleteReservationUpdates',
  { readonly leaseId: string; readonly updates: readonly UpdateOutcome[] }
>;
/** `round` keys the finding's event id: two reactors in the same round record it once. */
export type RecordReconciliationReaction = AppCommand<
  'RecordReconciliation',
  { readonly leaseId: string; readonly outcome: ReservationOutcome; readonly round: number }
>;

export type RecordLeftoversReaction = AppCommand<'RecordLeftovers', { readonly leaseId: string; readonly leftovers: readonly Leftover[] }>;

/**
 * What became of a reaction: recorded by this call, or already by another reactor (the same event ids:
 * a replay); superseded (the ledger moved on, nothing of it is owed any more); or refused by the domain
 * (the reactor's view of the lease was behind).
 */
export type LeaseReaction<Recorded> =
  | ({ readonly status: 'recorded' | 'replayed' } & Recorded)
  | { readonly status: 'superseded' }
  | { readonly status: 'refused'; readonly reason: string };

export type PhaseBegun = LeaseReaction<{ readonly beginId: string }>;
/** `type`: the last event recorded (e.g. 'Lease.Started'). */
export type OutcomeRecorded = LeaseReaction<{ readonly type: string }>;
/** A clean check records nothing. */
export type ReconciliationRecorded = OutcomeRecorded | { readonly status: 'clean' };

const refused = (error: DomainError): Decision<{ readonly status: 'refused'; readonly reason: string }> => ({
  appends: [],
  result: { status: 'refused', reason: error.message },
});

const SUPERSEDED: Decision<{ readonly status: 'superseded' }> = { appends: [], result: { status: 'superseded' } };

const recorded = <R extends object>(append: AppendRequest, details: R): Decision<{ readonly status: 'recorded' } & R> => ({
  appends: [append],
  result: { status: 'recorded', ...details },
});

const lastType = (events: readonly LeaseEvent[]): string => events.at(-1)?.type ?? '';

/** The identity of an update's outcome: the same for every reactor and every rerun. */
const updateEventId = (leaseId: string, event: LeaseEvent, index: number): string => {
  switch (event.type) {
    case 'Reservation.UpdateApplied':
    case 'Reservation.UpdateFailed':
      return deterministicId(`${leaseId}:update:${event.data.sequence}:${event.data.reservationId}`);
    case 'Lease.PreemptibleServerReaped':
      // a server is reaped once in its life: its id keeps the event apart from other updates' reaps
      return deterministicId(`${leaseId}:update:reaped:${event.data.reservationId}:${event.data.serverId}`);
    default:
      return deterministicId(`${leaseId}:update:event:${index}`);
  }
};

/** An update's outcome reacts to the reservation's latest change. */
const updateCause = (view: LeaseReactionView, event: LeaseEvent): string => {
  const reservationId =
    event.type === 'Reservation.UpdateApplied' ||
    event.type === 'Reservation.UpdateFailed' ||
    event.type === 'Lease.PreemptibleServerReaped'
      ? event.data.reservationId
      : '';
  return view.changedBy[reservationId] ?? view.lastEventId;
};

/**
 * What the reactor records on a lease: the begin of a due phase, its outcome, the outcomes of an active
 * lease's changes, a reconciliation's finding. Each is decided on the lease as the ledger has it (the
 * caller's view of it first when it gives one, see react(); again on fresh state after a conflict), and
 * written with the reactions to other leases asked for meanwhile (CommandHandler.handleOnStream). Its
 * event ids derive from the timer's or the change's identity, so a second reactor or a rerun after a
 * crash records nothing twice.
 */
export class LeaseReactionUseCases {
  constructor(private readonly context: Pick<ApplicationContext, 'handler'>) {}

  /** Intent first: the phase's begin event, whose id keys the phase's effects and outcome. `known`: see react(). */
  async beginPhase(command: BeginLeasePhaseReaction, known?: LeaseReactionView): Promise<PhaseBegun> {
    requireService(command.metadata.actor, command.type);
    const { leaseId, phase } = command.data;
    return this.react(
      leaseId,
      (view): Decision<PhaseBegun> => {
        const events = decided(() =>
          leaseDecider.decide({ type: 'BeginLeasePhase', data: { leaseId, phase, now: command.metadata.now } }, view.state),
        );
        if (isDomainError(events)) return refused(events);
        const beginId = deterministicId(`${leaseId}:${phase}:begin:${view.revision}`);
        const ids = events.map((_, index) => (index === 0 ? beginId : deterministicId(`${beginId}:${index}`)));
        const metadata = reactionMetadata(command.metadata, 'begin-lease-phase', {
          correlationId: view.correlationId || beginId,
          causationId: view.lastEventId,
        });
        return recorded(appendTo(leaseStream(leaseId), view.revision, events, metadata, idSequence(ids)), { beginId });
      },
      known,
    );
  }

  /** The phase's outcome, unless the phase was begun again or its outcome recorded meanwhile. `known`: see react(). */
  async completePhase(command: CompleteLeasePhaseReaction, known?: LeaseReactionView): Promise<OutcomeRecorded> {
    requireService(command.metadata.actor, command.type);
    const { leaseId, phase, beginId, outcomes } = command.data;
    return this.react(
      leaseId,
      (view): Decision<OutcomeRecorded> => {
        if (view.begin?.eventId !== beginId) return SUPERSEDED;
        const complete = { type: 'CompleteLeasePhase', data: { leaseId, phase, outcomes, now: command.metadata.now } } as const;
        const events = decided(() => leaseDecider.decide(complete, view.state));
        if (isDomainError(events)) return refused(events);
        const ids = events.map((_, index) => deterministicId(`${beginId}:outcome:${index}`));
        const metadata = reactionMetadata(command.metadata, 'complete-lease-phase', {
          correlationId: view.correlationId || beginId,
          causationId: beginId,
        });
        return recorded(appendTo(leaseStream(leaseId), view.revision, events, metadata, idSequence(ids)), { type: lastType(events) });
      },
      known,
    );
  }

  /**
   * The outcomes of changes still owed; those of changes recorded meanwhile or superseded by newer ones are dropped. `known`: see react().
   */
  async completeUpdates(command: CompleteReservationUpdatesReaction, known?: LeaseReactionView): Promise<OutcomeRecorded> {
    requireService(command.metadata.actor, command.type);
    const { leaseId, updates } = command.data;
    return this.react(
      leaseId,
      (view): Decision<OutcomeRecorded> => {
        const pending = view.state.status === 'Active' ? view.state.lease.pendingUpdates : {};
        const current = updates.filter(({ sequence, outcome }) => pending[outcome.reservationId] === sequence);
        if (current.length === 0) return SUPERSEDED;
        const complete = { type: 'CompleteReservationUpdates', data: { leaseId, updates: current, now: command.metadata.now } } as const;
        const events = decided(() => leaseDecider.decide(complete, view.state));
        if (isDomainError(events)) return refused(events);
        const causes = events.map((event) => updateCause(view, event));
        const correlationId = view.correlationId || (causes[0] ?? view.lastEventId);
        const data = events.map((event, index) => ({
          id: updateEventId(leaseId, event, index),
          type: event.type,
          data: event.data,
          metadata: reactionMetadata(command.metadata, 'complete-reservation-updates', {
            correlationId,
            causationId: causes[index] ?? view.lastEventId,
          }),
        }));
        return recorded({ streamId: leaseStream(leaseId), expectedRevision: view.revision, events: data }, { type: lastType(events) });
      },
      known,
    );
  }

  /** What a reconciliation found: drift or a failure is recorded, a clean check nothing. */
  async recordReconciliation(command: RecordReconciliationReaction): Promise<ReconciliationRecorded> {
    requireService(command.metadata.actor, command.type);
    const { leaseId, outcome, round } = command.data;
    return this.react(leaseId, (view): Decision<ReconciliationRecorded> => {
      const events = decided(() =>
        leaseDecider.decide({ type: 'RecordReconciliation', data: { leaseId, outcome, now: command.metadata.now } }, view.state),
      );
      if (isDomainError(events)) return refused(events);
      if (events.length === 0) return { appends: [], result: { status: 'clean' } };
      const id = deterministicId(`${leaseId}:reconcile:${outcome.reservationId}:${round}`);
      const metadata = reactionMetadata(command.metadata, 'reconcile', {
        correlationId: view.correlationId || id,
        causationId: view.lastEventId,
      });
      return recorded(appendTo(leaseStream(leaseId), view.revision, events, metadata, idSequence([id])), { type: lastType(events) });
    });
  }

  /**
   * A reclamation check of an ended lease, decided on the ledger's fold (the timeline forgets ended
   * leases). Its event id comes from the revision it follows, so two reactors recording the same finding
   * record it once; the same finding as last time records nothing (`clean`).
   */
  async recordLeftovers(command: RecordLeftoversReaction): Promise<ReconciliationRecorded> {
    requireService(command.metadata.actor, command.type);
    const { leaseId, leftovers } = command.data;
    return this.react(leaseId, (view): Decision<ReconciliationRecorded> => {
      const events = decided(() =>
        leaseDecider.decide({ type: 'RecordLeftovers', data: { leaseId, leftovers, now: command.metadata.now } }, view.state),
      );
      if (isDomainError(events)) return refused(events);
      if (events.length === 0) return { appends: [], result: { status: 'clean' } };
      const id = deterministicId(`${leaseId}:leftovers:${view.revision}`);
      const metadata = reactionMetadata(command.metadata, 'reclamation', {
        correlationId: view.correlationId || id,
        causationId: view.lastEventId,
      });
      return recorded(appendTo(leaseStream(leaseId), view.revision, events, metadata, idSequence([id])), { type: lastType(events) });
    });
  }

  /**
   * Decides on `known` first (the caller's fold of the lease, e.g. the reactor's timeline), which spares
   * a read of the stream when it is current: its append carries the revision it was decided on, so a
   * stale view costs a conflict and a decision on the ledger's fold. A decision that appends nothing is
   * fenced by no revision, so it is taken on the ledger's fold again.
   */
  private async react<R extends { readonly status: string }>(
    leaseId: string,
    decide: (view: LeaseReactionView) => Decision<R>,
    known?: LeaseReactionView,
  ): Promise<R> {
    let guess = known;
    const { result, replayed } = await this.context.handler.handleOnStream(leaseStream(leaseId), async () => {
      const onGuess = guess === undefined ? undefined : decide(guess);
      guess = undefined;
      return onGuess !== undefined && onGuess.appends.length > 0 ? onGuess : decide(await this.load(leaseId));
    });
    return replayed && result.status === 'recorded' ? { ...result, status: 'replayed' } : result;
  }

  private async load(leaseId: string): Promise<LeaseReactionView> {
    return foldEvents(leaseReactionView, await this.context.handler.store.readStream(leaseStream(leaseId)));
  }
}
