import type {
  DueAction,
  EffectPhase,
  EffectRecord,
  LeasePhase,
  LeaseState,
  Reservation,
  ReservationOutcome,
  UpdateOutcome,
} from '#domain/index.js';
import type { CommandMetadata } from '#application/command.js';
import type { OutcomeRecorded } from '#application/reactions/lease-reactions.use-cases.js';
import type { CommandBus } from '@nestjs/cqrs';
import { type EffectContext, EffectFailedError, type EffectsRegistry } from '#plugins/effects.port.js';
import { reservedHostIds } from '#plugins/reservation-holdings.js';
import { applyEffects } from './effects-dispatch.js';
import type { LeaseRecord, LeaseTimeline } from './lease-timeline.js';
import { reactorMetadata } from './reactor-metadata.js';
import { BeginLeasePhase, CompleteLeasePhase, CompleteReservationUpdates } from './commands/reactor.commands.js';

export interface LeaseReactionsOptions {
  readonly commands: CommandBus;
  readonly timeline: LeaseTimeline;
  readonly effects: EffectsRegistry;
  readonly clock: () => Date;
}

/** A due action the domain may refuse when the reactor's view is behind. */
interface StaleAction {
  readonly leaseId: string;
  readonly phase: EffectPhase;
  readonly step: DueAction['step'];
}

/** Whose the lease's cloud work is: its project, and its trust when it has one. */
interface LeaseOwner {
  readonly projectId: string;
  readonly trustId: string | null;
}

/** One change of an active reservation, numbered by the lease, still owed to the cloud. */
interface OwedUpdate {
  readonly reservation: Reservation;
  readonly sequence: number;
}

/** The identity of an update's effects: the same for every reactor and every rerun. */
const updateKey = (leaseId: string, sequence: number, reservationId: string): string => `${leaseId}:update:${sequence}:${reservationId}`;

/** The active lease's changes still owed to the cloud, each with its change number. */
const owedUpdates = (state: LeaseState): OwedUpdate[] => {
  if (state.status !== 'Active') return [];
  const { reservations, pendingUpdates } = state.lease;
  return reservations.flatMap((reservation) => {
    const sequence = pendingUpdates[reservation.id];
    return sequence === undefined ? [] : [{ reservation, sequence }];
  });
};

const SUPERSEDED = 'superseded';

/**
 * A lease phase as a saga: record the begin (intent), run every reservation's effects, record the
 * outcomes. An active lease's changed reservations likewise: run their update effects, record the
 * outcomes. The lease reaction use cases record them (through the CommandBus), under ids derived from the timer's or the
 * change's identity, so a second reactor or a rerun after a crash appends nothing twice. Throws only
 * transient errors, which the scheduler retries with backoff.
 */
export class LeaseReactions {
  constructor(private readonly options: LeaseReactionsOptions) {}

  /** Resolves with the recorded result (e.g. 'Lease.Started'), or 'superseded' when the log had moved on. */
  async execute(action: DueAction): Promise<string> {
    if (action.phase === 'update') return this.update(action.leaseId);
    const phaseAction = { ...action, phase: action.phase };
    const beginId = action.step === 'begin' ? await this.begin(phaseAction) : await this.pendingBegin(phaseAction);
    if (beginId === null) return SUPERSEDED;
    const outcomes = await this.runEffects(action.leaseId, phaseAction.phase, beginId);
    return this.complete(action.leaseId, phaseAction.phase, beginId, outcomes);
  }

  private async pendingBegin(action: DueAction & { readonly phase: LeasePhase }): Promise<string | null> {
    const begin = this.options.timeline.get(action.leaseId)?.begin;
    return begin?.phase === action.phase ? begin.eventId : this.staleView(action);
  }

  /** Records the phase's begin; its id when this call recorded it, null when another reactor did or the view was stale. */
  private async begin({ leaseId, phase }: DueAction & { readonly phase: LeasePhase }): Promise<string | null> {
    const record = this.options.timeline.get(leaseId);
    if (record === undefined) return null;
    const begun = await this.options.commands.execute(
      new BeginLeasePhase({ leaseId, phase }, this.metadata(record, record.lastEventId), record),
    );
    switch (begun.status) {
      case 'recorded':
        await this.options.timeline.refresh(leaseId);
        return begun.beginId;
      case 'replayed':
      case 'superseded':
        // another reactor began it: the scheduler runs its completion next
        await this.options.timeline.refresh(leaseId);
        return null;
      case 'refused':
        return this.staleView({ leaseId, phase, step: 'begin' });
      default: {
        const _never: never = begun;
        return _never;
      }
    }
  }

  private async runEffects(leaseId: string, phase: LeasePhase, beginId: string): Promise<ReservationOutcome[]> {
    const state = this.options.timeline.get(leaseId)?.state;
    if (state === undefined || state.status === 'Initial') return [];
    const outcomes: ReservationOutcome[] = [];
    for (const reservation of state.lease.reservations) {
      const context: EffectContext = {
        idempotencyKey: `${beginId}:${reservation.id}`,
        leaseId,
        projectId: state.lease.projectId,
        phase,
        resourceNames: this.resourceNames(reservation),
        trustId: state.lease.trustId,
      };
      outcomes.push(await this.outcomeOf(context, reservation));
    }
    const { trustId } = state.lease;
    if (phase !== 'end' || trustId === null) return outcomes;
    const trustContext: EffectContext = {
      idempotencyKey: `${beginId}:trust`,
      leaseId,
      projectId: state.lease.projectId,
      phase,
      resourceNames: {},
      trustId,
    };
    return this.withTrustDeleted(outcomes, await this.deleteTrust(trustContext, trustId));
  }

  /** The end no longer needs the lease's trust. A refusal is recorded, not a failed end: the cloud's resources are gone. */
  private async deleteTrust(context: EffectContext, trustId: string): Promise<readonly EffectRecord[]> {
    const trusts = this.options.effects.trusts;
    if (trusts === undefined) return [];
    try {
      return await trusts.deleteTrust(context, trustId);
    } catch (error) {
      if (!(error instanceof EffectFailedError)) throw error;
      return [...error.effects, { operation: 'trust.delete', trust_id: trustId, error: error.message }];
    }
  }

  /** Trust records go with the last reservation's outcome (outcomes are per reservation; the trust is the lease's). */
  private withTrustDeleted(outcomes: ReservationOutcome[], records: readonly EffectRecord[]): ReservationOutcome[] {
    const last = outcomes.at(-1);
    if (last === undefined || records.length === 0) return outcomes;
    return [...outcomes.slice(0, -1), { ...last, effects: [...last.effects, ...records] }];
  }

  private async outcomeOf(context: EffectContext, reservation: Reservation): Promise<ReservationOutcome> {
    try {
      const effects = await applyEffects(this.options.effects, context, reservation);
      return { reservationId: reservation.id, ok: true, effects };
    } catch (error) {
      if (!(error instanceof EffectFailedError)) throw error;
      return { reservationId: reservation.id, ok: false, error: error.message, effects: error.effects };
    }
  }

  /** Hypervisor hostnames of the hosts the reservation holds (hosts or instance slots). */
  private resourceNames(reservation: Reservation): Record<string, string> {
    const names = reservedHostIds(reservation).flatMap((hostId) => {
      const name = this.options.timeline.hostname(hostId);
      return name === undefined ? [] : [[hostId, name] as const];
    });
    return Object.fromEntries(names);
  }

  private async complete(leaseId: string, phase: LeasePhase, beginId: string, outcomes: readonly ReservationOutcome[]): Promise<string> {
    const record = this.options.timeline.get(leaseId);
    // gone: another reactor recorded this phase's outcome
    if (record === undefined) return SUPERSEDED;
    const data = { leaseId, phase, beginId, outcomes };
    const completed = await this.options.commands.execute(new CompleteLeasePhase(data, this.metadata(record, beginId), record));
    return this.recorded(completed, { leaseId, phase, step: 'complete' });
  }

  /** Acts out every change the active lease owes the cloud, then records the outcomes of those still owed. */
  private async update(leaseId: string): Promise<string> {
    // another reactor may be ahead of our subscription: act on the latest changes, not on superseded ones
    await this.options.timeline.refresh(leaseId);
    const record = this.options.timeline.get(leaseId);
    const owed = record === undefined ? [] : owedUpdates(record.state);
    if (record?.state.status !== 'Active' || owed.length === 0)
      return (await this.staleView({ leaseId, phase: 'update', step: 'complete' })) ?? SUPERSEDED;
    const updates: UpdateOutcome[] = [];
    for (const { reservation, sequence } of owed) {
      const context = this.updateContext(leaseId, record.state.lease, reservation, sequence);
      updates.push({ sequence, outcome: await this.outcomeOf(context, reservation) });
    }
    const result = await this.completeUpdates(leaseId, record, updates);
    if (result !== SUPERSEDED) return result;
    const repairs = await this.reconverge(
      leaseId,
      owed.map(({ reservation }) => [reservation.id, record.changedBy[reservation.id]] as const),
    );
    return [result, ...repairs].join('; ');
  }

  private updateContext(leaseId: string, lease: LeaseOwner, reservation: Reservation, sequence: number): EffectContext {
    const idempotencyKey = updateKey(leaseId, sequence, reservation.id);
    return {
      idempotencyKey,
      leaseId,
      projectId: lease.projectId,
      phase: 'update',
      resourceNames: this.resourceNames(reservation),
      trustId: lease.trustId,
    };
  }

  /**
   * Our update effects may have landed after those of a newer change that another reactor applied and
   * recorded meanwhile: apply the reservation's latest state once more (its recorded outcome stands).
   * A newer change still owed needs nothing here: the scheduler runs it next. Returns what it did, for the log.
   */
  private async reconverge(leaseId: string, applied: readonly (readonly [string, string | undefined])[]): Promise<string[]> {
    await this.options.timeline.refresh(leaseId);
    const record = this.options.timeline.get(leaseId);
    if (record?.state.status !== 'Active') return [];
    const { reservations, pendingUpdates, changeSequence } = record.state.lease;
    const repairs: string[] = [];
    for (const [reservationId, changedBy] of applied) {
      const reservation = reservations.find((r) => r.id === reservationId);
      if (reservation === undefined || record.changedBy[reservationId] === changedBy || pendingUpdates[reservationId] !== undefined)
        continue;
      const outcome = await this.outcomeOf(this.updateContext(leaseId, record.state.lease, reservation, changeSequence), reservation);
      repairs.push(
        outcome.ok
          ? `reapplied the latest change of ${reservationId}`
          : `reapplying the latest change of ${reservationId} failed: ${outcome.error}`,
      );
    }
    return repairs;
  }

  private async completeUpdates(leaseId: string, record: LeaseRecord, updates: readonly UpdateOutcome[]): Promise<string> {
    const metadata = this.metadata(record, record.lastEventId);
    const completed = await this.options.commands.execute(new CompleteReservationUpdates({ leaseId, updates }, metadata, record));
    return this.recorded(completed, { leaseId, phase: 'update', step: 'complete' });
  }

  /** The recorded event's type; 'superseded' when another reactor recorded it first or it is no longer owed. */
  private async recorded(outcome: OutcomeRecorded, action: StaleAction): Promise<string> {
    switch (outcome.status) {
      case 'recorded':
        await this.options.timeline.refresh(action.leaseId);
        return outcome.type;
      case 'replayed':
        await this.options.timeline.refresh(action.leaseId);
        return SUPERSEDED;
      case 'superseded':
        return SUPERSEDED;
      case 'refused':
        return (await this.staleView(action)) ?? SUPERSEDED;
      default: {
        const _never: never = outcome;
        return _never;
      }
    }
  }

  /** A reaction to the lease: the reactor's, now, joining the lease's correlation. */
  private metadata(record: LeaseRecord, causationId: string): CommandMetadata {
    return reactorMetadata({ correlationId: record.correlationId, causationId }, this.options.clock);
  }

  /**
   * After the domain refused the action: if the fresh view owes something else, the scheduler runs that
   * next; if it still owes this very action, view and domain disagree, so back off rather than spin.
   */
  private async staleView({ leaseId, phase, step }: StaleAction): Promise<null> {
    await this.options.timeline.refresh(leaseId);
    const due = this.options.timeline.queue.get(leaseId)?.action;
    if (due?.phase === phase && due.step === step) throw new Error(`Lease ${leaseId}: the domain refused its due ${phase} ${step}`);
    return null;
  }
}
