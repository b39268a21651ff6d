import {
  type DueAction,
  type EffectRecord,
  type HostReservation,
  type LeaseEvent,
  type LeasePhase,
  type ReservationOutcome,
  isDomainError,
  leaseDecider,
  leaseStream,
} from '../../../libs/domain/src/index.js';
import {
  type EventData,
  type EventStore,
  IdempotencyConflictError,
  WrongExpectedRevisionError,
} from '../../../libs/event-store/src/event-store.port.js';
import { type EffectContext, EffectFailedError, type EffectsRegistry, type ReservationEffects } from '../../../libs/plugins/src/effects.port.js';
import { deterministicId } from './deterministic-id.js';
import type { LeaseRecord, LeaseTimeline } from './lease-timeline.js';

export interface LeaseReactionsOptions {
  readonly store: EventStore;
  readonly timeline: LeaseTimeline;
  readonly effects: EffectsRegistry;
  readonly clock: () => Date;
}

type Reaction = 'begin-lease-phase' | 'complete-lease-phase';

type PhaseCall = (adapter: ReservationEffects<HostReservation>, context: EffectContext, r: HostReservation) => Promise<readonly EffectRecord[]>;

const CALL: Readonly<Record<LeasePhase, PhaseCall>> = {
  start: (adapter, context, reservation) => adapter.onStart(context, reservation),
  before_end: (adapter, context, reservation) => adapter.beforeEnd(context, reservation),
  end: (adapter, context, reservation) => adapter.onEnd(context, reservation),
};

const SUPERSEDED = 'superseded';

/** Complete appends that lose a race this often in a row give way to the scheduler's backoff. */
const MAX_COMPLETE_ATTEMPTS = 5;

/**
 * A lease phase as a saga: record the begin (intent), run every reservation's effects, record the
 * outcomes. Event ids derive from the timer's identity, so a second reactor or a rerun after a crash
 * appends nothing twice. Throws only transient errors, which the scheduler retries with backoff.
 */
export class LeaseReactions {
  constructor(private readonly options: LeaseReactionsOptions) {}

  /** Resolves with the phase's recorded result (e.g. 'Lease.Started'), or 'superseded' when the log had moved on. */
  async execute(action: DueAction): Promise<string> {
    const beginId = action.step === 'begin' ? await this.begin(action) : await this.pendingBegin(action);
    if (beginId === null) return SUPERSEDED;
    const outcomes = await this.runEffects(action.leaseId, action.phase, beginId);
    return this.complete(action.leaseId, action.phase, beginId, outcomes);
  }

  private async pendingBegin(action: DueAction): Promise<string | null> {
    const begin = this.options.timeline.get(action.leaseId)?.begin;
    return begin?.phase === action.phase ? begin.eventId : this.staleView(action);
  }

  /** Appends the phase's begin event; its id when this call recorded it, null when the view was stale. */
  private async begin({ leaseId, phase }: DueAction): Promise<string | null> {
    const record = this.options.timeline.get(leaseId);
    if (record === undefined) return null;
    const now = this.options.clock().toISOString();
    const events = this.decide(() => leaseDecider.decide({ type: 'BeginLeasePhase', data: { leaseId, phase, now } }, record.state));
    if (events === null) return this.staleView({ leaseId, phase, step: 'begin' });
    const id = deterministicId(`${leaseId}:${phase}:begin:${record.revision}`);
    const ids = events.map((_, index) => (index === 0 ? id : deterministicId(`${id}:${index}`)));
    const appended = await this.append(record, leaseId, events, ids, { causationId: record.lastEventId, fallback: id, reaction: 'begin-lease-phase' });
    return appended ? id : null;
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
        resourceNames: this.resourceNames(reservation.hostIds),
      };
      outcomes.push(await this.outcomeOf(context, reservation));
    }
    return outcomes;
  }

  private async outcomeOf(context: EffectContext, reservation: HostReservation): Promise<ReservationOutcome> {
    const adapter = this.options.effects[reservation.resourceType];
    try {
      const effects = await CALL[context.phase](adapter, context, reservation);
      return { reservationId: reservation.id, ok: true, effects };
    } catch (error) {
      if (!(error instanceof EffectFailedError)) throw error;
      return { reservationId: reservation.id, ok: false, error: error.message, effects: error.effects };
    }
  }

  private resourceNames(hostIds: readonly string[]): Record<string, string> {
    const names = hostIds.flatMap((hostId) => {
      const name = this.options.timeline.hostname(hostId);
      return name === undefined ? [] : [[hostId, name] as const];
    });
    return Object.fromEntries(names);
  }

  private async complete(leaseId: string, phase: LeasePhase, beginId: string, outcomes: readonly ReservationOutcome[]): Promise<string> {
    for (let attempt = 1; attempt <= MAX_COMPLETE_ATTEMPTS; attempt++) {
      const record = this.options.timeline.get(leaseId);
      // gone or begun again: another reactor recorded this phase's outcome
      if (record === undefined || record.begin?.eventId !== beginId) return SUPERSEDED;
      const now = this.options.clock().toISOString();
      const command = { type: 'CompleteLeasePhase', data: { leaseId, phase, outcomes, now } } as const;
      const events = this.decide(() => leaseDecider.decide(command, record.state));
      if (events === null) return (await this.staleView({ leaseId, phase, step: 'complete' })) ?? SUPERSEDED;
      const ids = events.map((_, index) => deterministicId(`${beginId}:outcome:${index}`));
      const source = { causationId: beginId, fallback: beginId, reaction: 'complete-lease-phase' } as const;
      if (await this.append(record, leaseId, events, ids, source)) return events.at(-1)?.type ?? SUPERSEDED;
    }
    throw new Error(`Lease ${leaseId}: ${phase} outcome kept losing append races`);
  }

  /** The command's events, or null when the domain refuses it (our view of the lease is behind). */
  private decide(run: () => readonly LeaseEvent[]): readonly LeaseEvent[] | null {
    try {
      return run();
    } catch (error) {
      if (isDomainError(error)) return null;
      throw error;
    }
  }

  /**
   * After the domain refused the action: if the fresh view owes something else, the scheduler runs that
   * next; if it still owes this very action, view and domain disagree, so back off rather than spin.
   */
  private async staleView({ leaseId, phase, step }: Pick<DueAction, 'leaseId' | 'phase' | 'step'>): Promise<null> {
    await this.options.timeline.refresh(leaseId);
    const due = this.options.timeline.queue.get(leaseId)?.action;
    if (due?.phase === phase && due.step === step) throw new Error(`Lease ${leaseId}: the domain refused its due ${phase} ${step}`);
    return null;
  }

  /** True when this call wrote the events; false when someone else did or the stream moved (view refreshed). */
  private async append(
    record: LeaseRecord,
    leaseId: string,
    events: readonly LeaseEvent[],
    ids: readonly string[],
    source: { readonly causationId: string; readonly fallback: string; readonly reaction: Reaction },
  ): Promise<boolean> {
    const metadata = { correlationId: record.correlationId || source.fallback, causationId: source.causationId, actor: null, reaction: source.reaction };
    const data: EventData[] = events.map((event, index) => ({ id: ids[index] ?? '', type: event.type, data: event.data, metadata }));
    try {
      const result = await this.options.store.appendToStream(leaseStream(leaseId), record.revision, data);
      if (!result.idempotentReplay) {
        this.options.timeline.applyAppended(leaseId, data.map((event, index) => ({ ...event, revision: record.revision + 1 + index })));
        return true;
      }
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError || error instanceof IdempotencyConflictError)) throw error;
    }
    await this.options.timeline.refresh(leaseId);
    return false;
  }
}
