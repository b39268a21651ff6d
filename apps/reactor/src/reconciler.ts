import { type Reservation, type ReservationOutcome, isDomainError } from '#domain/index.js';
import type { CommandBus } from '@nestjs/cqrs';
import { type EffectContext, EffectFailedError, type EffectsRegistry } from '#plugins/effects.port.js';
import { reservedHostIds } from '#plugins/reservation-holdings.js';
import { applyEffects } from './effects-dispatch.js';
import type { ReclamationReport, ReclamationWatch } from './reclamation-watch.js';
import { type LeaseRecord, type LeaseTimeline, isSettledActive } from './lease-timeline.js';
import { reactorMetadata } from './reactor-metadata.js';
import { RecordReconciliation } from './commands/reactor.commands.js';
import type { ReactorLogEntry } from './scheduler.js';
import { describeError } from '#domain/index.js';

export interface ReconcilerOptions {
  readonly commands: CommandBus;
  readonly timeline: LeaseTimeline;
  readonly effects: EffectsRegistry;
  readonly clock: () => Date;
  /** Time between two rounds; the round's number (time / interval) keys its event ids. */
  readonly intervalMs: number;
  readonly log: (entry: ReactorLogEntry) => void;
  /** Ended leases' leftovers, looked at in the same round (absent: none). */
  readonly reclamation?: ReclamationWatch;
  /**
   * Runs a lease's check as one of its due actions would run (Scheduler.exclusive): not beside them, null while one is in flight or due.
   */
  readonly exclusive: <T>(leaseId: string, work: () => Promise<T>) => Promise<T | null>;
}

/** What one round found, for the log and the tests. */
export interface ReconcileReport {
  readonly checked: number;
  readonly drifted: number;
  readonly failed: number;
  /**
   * Checks that could not run (the cloud unreachable, an action of the lease due or running) or could not be recorded (the lease moved on,
   * or kept losing races): next round.
   */
  readonly skipped: number;
}

type Counts = { -readonly [K in keyof ReconcileReport]: number };

/**
 * Compares what the ledger expects of every settled active reservation with what the cloud has, by
 * running the reservation's idempotent converge ('update' effects): a step it finds done is marked
 * `already`, any other step repaired drift. Drift and failures are recorded on the lease
 * (Reservation.DriftRepaired / ReconciliationFailed); a clean check records nothing. Event ids come
 * from (lease, reservation, round), so two reactors in the same round record a finding once.
 */
export class Reconciler {
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<ReconcileReport> | null = null;
  private stopped = false;

  constructor(private readonly options: ReconcilerOptions) {}

  start(): void {
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    await this.round;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.round = this.reconcileOnce()
        .then(async (report) => {
          this.options.log({ event: 'reconcile', ...report });
          const reclaimed = await this.reclaimOnce();
          if (reclaimed !== null) this.options.log({ event: 'reclamation', ...reclaimed });
          return report;
        })
        .finally(() => this.schedule());
    }, this.options.intervalMs);
  }

  /** The ended leases' look, in the same round after the active ones (null: no watch). */
  async reclaimOnce(): Promise<ReclamationReport | null> {
    return (await this.options.reclamation?.checkOnce(() => this.stopped)) ?? null;
  }

  async reconcileOnce(): Promise<ReconcileReport> {
    const now = this.options.clock().getTime();
    // a round's number keys its event ids; a round run by hand (no interval) is its own round
    const round = this.options.intervalMs > 0 ? Math.floor(now / this.options.intervalMs) : now;
    const counts: Counts = { checked: 0, drifted: 0, failed: 0, skipped: 0 };
    for (const listed of this.options.timeline.settledActiveLeases()) {
      if (this.stopped) return counts;
      if (listed.state.status !== 'Active') continue;
      const { leaseId, reservations } = listed.state.lease;
      // the lease as the timeline has it now, not when the round began: its end may have run meanwhile
      const checked = await this.options.exclusive(leaseId, async () => {
        const record = this.options.timeline.get(leaseId);
        if (!isSettledActive(record)) return false;
        await this.reconcileLease(record, round, counts);
        return true;
      });
      if (checked !== true) counts.skipped += reservations.length;
    }
    return counts;
  }

  private async reconcileLease(record: LeaseRecord, round: number, counts: Counts): Promise<void> {
    for (const reservation of record.state.status === 'Active' ? record.state.lease.reservations : []) {
      if (this.stopped) return;
      const outcome = await this.check(record, reservation, round);
      if (outcome === null) {
        counts.skipped++;
        continue;
      }
      counts.checked++;
      const recorded = await this.record(record, outcome, round);
      if (recorded === 'skipped') counts.skipped++;
      else if (recorded === 'Reservation.DriftRepaired') counts.drifted++;
      else if (recorded === 'Reservation.ReconciliationFailed') counts.failed++;
    }
  }

  /** The converge's outcome, or null when the cloud could not be asked (a transient failure). */
  private async check(record: LeaseRecord, reservation: Reservation, round: number): Promise<ReservationOutcome | null> {
    if (record.state.status !== 'Active') return null;
    const { leaseId, projectId, trustId } = record.state.lease;
    const context: EffectContext = {
      idempotencyKey: `${leaseId}:reconcile:${reservation.id}:${round}`,
      leaseId,
      projectId,
      phase: 'update',
      resourceNames: this.resourceNames(reservation),
      trustId,
    };
    try {
      return { reservationId: reservation.id, ok: true, effects: await applyEffects(this.options.effects, context, reservation) };
    } catch (error) {
      if (error instanceof EffectFailedError)
        return { reservationId: reservation.id, ok: false, error: error.message, effects: error.effects };
      this.options.log({ event: 'reconcile-skipped', leaseId, reservationId: reservation.id, error: describeError(error) });
      return null;
    }
  }

  /** Records what the check found (nothing for a clean check); the recorded event type, 'clean', or 'skipped'. */
  private async record(record: LeaseRecord, outcome: ReservationOutcome, round: number): Promise<string> {
    const leaseId = record.state.status === 'Initial' ? '' : record.state.lease.leaseId;
    const metadata = reactorMetadata({ correlationId: record.correlationId, causationId: record.lastEventId }, this.options.clock);
    try {
      const found = await this.options.commands.execute(new RecordReconciliation({ leaseId, outcome, round }, metadata));
      switch (found.status) {
        case 'recorded':
          await this.options.timeline.refresh(leaseId);
          return found.type;
        case 'replayed':
          return found.type;
        case 'clean':
          return 'clean';
        case 'superseded':
        case 'refused':
          return 'skipped';
        default: {
          const _never: never = found;
          return _never;
        }
      }
    } catch (error) {
      if (!isDomainError(error)) throw error;
      this.options.log({ event: 'reconcile-skipped', leaseId, reservationId: outcome.reservationId, error: error.message });
      return 'skipped';
    }
  }

  private resourceNames(reservation: Reservation): Record<string, string> {
    const names = reservedHostIds(reservation).flatMap((hostId) => {
      const name = this.options.timeline.hostname(hostId);
      return name === undefined ? [] : [[hostId, name] as const];
    });
    return Object.fromEntries(names);
  }
}
