import { HOST_CATEGORY, LEASE_CATEGORY } from '#domain/index.js';
import type { CommandBus } from '@nestjs/cqrs';
import { CommandHandler } from '#application/command-handler.js';
import type { EventStore, RecordedEvent, Subscription } from '#event-store/event-store.port.js';
import type { EffectsRegistry } from '#plugins/effects.port.js';
import type { HostEnrollmentEffects } from '#plugins/openstack/enrollment/host-enrollment.adapter.js';
import { HostEnrollment } from './host-enrollment.js';
import { LeaseReactions } from './lease-reactions.js';
import { FINISHED_REMEMBERED, LeaseTimeline, type TimelinePayload } from './lease-timeline.js';
import { type ReclamationReport, ReclamationWatch, type ReclamationWatchOptions } from './reclamation-watch.js';
import { TIMELINE_SCHEMA_VERSION, TIMELINE_SNAPSHOT_KIND, type TimelineSnapshots, loadTimelineSnapshot } from './timeline-snapshots.js';
import { SnapshotWriter } from '#application/snapshots/state-snapshots.js';
import { type ReconcileReport, Reconciler } from './reconciler.js';
import { type ReactorLogEntry, Scheduler } from './scheduler.js';
import { describeError } from '#domain/index.js';
import { type ReactorCommands, openReactorCommands } from './commands/reactor-command-bus.js';

const DAY_MS = 24 * 3600 * 1000;

/** The bus given, or one of the reactor's own on its store (a test's, a bench's), closed when it stops. */
const commandsFor = async (options: ReactorOptions): Promise<{ bus: CommandBus; own: ReactorCommands | null }> => {
  if (options.commands !== undefined) return { bus: options.commands, own: null };
  const own = await openReactorCommands({ handler: new CommandHandler(options.store), healing: null });
  return { bus: own.bus, own };
};

export interface ReactorOptions {
  readonly store: EventStore;
  /** The process's CommandBus, through which every outcome is recorded (absent: one of its own on `store`, closed when it stops). */
  readonly commands?: CommandBus;
  readonly effects: EffectsRegistry;
  readonly clock?: () => Date;
  readonly log?: (entry: ReactorLogEntry) => void;
  /** First transient-failure retry delay, doubled per attempt up to retryMaxMs (defaults 1 s and 30 s). */
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  readonly concurrency?: number;
  /** Time between two reconciliations of the active reservations with the cloud; 0 or absent: none. */
  readonly reconcileIntervalMs?: number;
  /** How long after its end an ended lease's leftovers are looked for in each reconciliation (default 24 h; 0: never). */
  readonly reclamationWindowMs?: number;
  /** Leftovers of ended leases by kind, as the last reconciliation found them (for the metrics). */
  readonly leftoversObserved?: ReclamationWatchOptions['observed'];
  /** Puts registered hosts into the cloud's free pool (OpenStack); absent: nothing to enroll (standalone). */
  readonly hostEnrollment?: HostEnrollmentEffects;
  /** Where the timeline starts from and keeps its snapshots; absent: it folds the whole log at each start. */
  readonly snapshots?: TimelineSnapshots;
}

/**
 * Turns lease schedules into side effects: folds the lease and host streams into a timeline, and
 * runs each lease's due action when its time comes, recording every outcome as an event. Keeps no
 * checkpoint: the timeline is restored from its snapshot (or folded from the whole log) and the
 * events after it at start, and the log says what is left to do.
 */
export class Reactor {
  private readonly timeline: LeaseTimeline;
  private readonly reclamation: ReclamationWatch | undefined;
  private readonly scheduler: Scheduler;
  private readonly log: (entry: ReactorLogEntry) => void;
  private subscription: Subscription | null = null;
  private enrollment: HostEnrollment | null = null;
  private resubscribeTimer: NodeJS.Timeout | null = null;
  private position = 0;
  private stopped = false;
  private started = false;
  private subscriptionError: string | null = null;
  private readonly companions: { stop(): Promise<void> }[] = [];
  private readonly reconciler: Reconciler;
  private snapshotWriter: SnapshotWriter<TimelinePayload> | null = null;
  private ownCommands: ReactorCommands | null = null;

  private constructor(
    private readonly options: ReactorOptions,
    private readonly commands: CommandBus,
  ) {
    const clock = options.clock ?? (() => new Date());
    this.log = options.log ?? (() => undefined);
    const windowMs = options.reclamationWindowMs ?? DAY_MS;
    const reclamation =
      windowMs > 0
        ? new ReclamationWatch({
            commands,
            effects: options.effects,
            clock,
            windowMs,
            hostname: (id) => this.timeline.hostname(id),
            log: this.log,
            observed: options.leftoversObserved,
          })
        : undefined;
    this.reclamation = reclamation;
    this.timeline = new LeaseTimeline(
      options.store,
      () => this.scheduler.wake(),
      FINISHED_REMEMBERED,
      (record) => reclamation?.finished(record),
    );
    this.reconciler = new Reconciler({
      reclamation,
      commands,
      timeline: this.timeline,
      effects: options.effects,
      clock,
      intervalMs: options.reconcileIntervalMs ?? 0,
      log: this.log,
      exclusive: (leaseId, work) => this.scheduler.exclusive(leaseId, work),
    });
    const reactions = new LeaseReactions({ commands, timeline: this.timeline, effects: options.effects, clock });
    this.scheduler = new Scheduler({
      queue: this.timeline.queue,
      clock,
      run: (action) => reactions.execute(action),
      log: this.log,
      retryBaseMs: options.retryBaseMs,
      retryMaxMs: options.retryMaxMs,
      concurrency: options.concurrency,
    });
  }

  /** Resolves once the log has been read up to its head and the scheduler runs. */
  static async start(options: ReactorOptions): Promise<Reactor> {
    const { bus, own } = await commandsFor(options);
    const reactor = new Reactor(options, bus);
    reactor.ownCommands = own;
    let restored: Record<string, unknown> = {};
    try {
      restored = await reactor.restore();
      await reactor.subscribe(1_000).caughtUp;
    } catch (error) {
      await reactor.stop();
      throw error;
    }
    reactor.log({ event: 'start', position: reactor.position, leases: reactor.timeline.queue.size, ...restored });
    reactor.writeSnapshots(typeof restored.snapshot === 'number' ? restored.snapshot : -1);
    reactor.scheduler.start();
    reactor.started = true;
    if ((options.reconcileIntervalMs ?? 0) > 0) {
      reactor.reconciler.start();
      reactor.stopsWith(reactor.reconciler);
    }
    if (options.hostEnrollment !== undefined) {
      const { store, retryBaseMs, retryMaxMs } = options;
      const clock = options.clock ?? (() => new Date());
      const { commands, log } = reactor;
      reactor.enrollment = await HostEnrollment.start({
        store,
        commands,
        effects: options.hostEnrollment,
        clock,
        log,
        retryBaseMs,
        retryMaxMs,
      });
    }
    return reactor;
  }

  /** Ready once it has read the log and its timers run, while it follows the log (for /readyz). */
  readiness(): { readonly ready: boolean; readonly position: number; readonly leases: number; readonly error: string | null } {
    const ready = this.started && !this.stopped && this.subscriptionError === null;
    return { ready, position: this.position, leases: this.timeline.queue.size, error: this.subscriptionError };
  }

  /** One reconciliation round now (tests, operators): what the cloud had drifted from, recorded on the leases. */
  reconcileOnce(): Promise<ReconcileReport> {
    return this.reconciler.reconcileOnce();
  }

  /** One look at the recently ended leases' leftovers, as a reconciliation round ends with (null: no watch). */
  reclaimOnce(): Promise<ReclamationReport | null> {
    return this.reconciler.reclaimOnce();
  }

  /** Runs `companion` (e.g. the Nova host monitors) beside the reactor and stops it first, before the store closes. */
  stopsWith(companion: { stop(): Promise<void> }): void {
    this.companions.push(companion);
  }

  /** Stops after the actions in flight have recorded their outcome (or failed). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const companion of this.companions.splice(0)) await companion.stop();
    if (this.resubscribeTimer !== null) clearTimeout(this.resubscribeTimer);
    await this.subscription?.stop();
    await this.enrollment?.stop();
    await this.scheduler.stop();
    // after the actions in flight recorded their outcome: the next start does not run them again
    await this.snapshotWriter?.stop();
    await this.ownCommands?.close();
    this.log({ event: 'stop', position: this.position });
  }

  /** The timeline from its snapshot, so that the subscription starts after it; what the start log line says of it. */
  private async restore(): Promise<Record<string, unknown>> {
    const { snapshots, store } = this.options;
    if (snapshots === undefined) return {};
    const loaded = await loadTimelineSnapshot(store, snapshots.store);
    if (!loaded.found) return { snapshot: null, rebuilt: loaded.reason };
    this.timeline.restore(loaded.payload);
    // the leases that finished before the snapshot are not folded again: the watch gets them from it
    this.reclamation?.restore(loaded.payload.reclaiming ?? []);
    this.position = loaded.position;
    return { snapshot: loaded.position };
  }

  /** From `restoredAt` on; at once when the start read anything past it (the next start reads less). */
  private writeSnapshots(restoredAt: number): void {
    const { snapshots } = this.options;
    if (snapshots === undefined) return;
    const subject = {
      kind: TIMELINE_SNAPSHOT_KIND,
      schemaVersion: TIMELINE_SCHEMA_VERSION,
      capture: () => ({ position: this.position, payload: { ...this.timeline.capture(), reclaiming: this.reclamation?.entries() ?? [] } }),
    };
    const onError = (error: unknown): void =>
      this.log({ event: 'error', phase: 'snapshot', position: this.position, error: describeError(error) });
    this.snapshotWriter = new SnapshotWriter({
      store: snapshots.store,
      subject,
      everyMs: snapshots.config.everyMs,
      everyEvents: snapshots.config.everyEvents,
      onError,
    }).start(restoredAt);
    if (snapshots.config.everyMs > 0) void this.snapshotWriter.write(1);
  }

  private subscribe(retryDelayMs: number): Subscription {
    const subscription = this.options.store.subscribeToAll({
      from: this.position,
      filter: { categories: [LEASE_CATEGORY, HOST_CATEGORY] },
      onEvents: (events) => this.ingest(events),
      onError: (error) => this.resubscribeLater(error, retryDelayMs),
    });
    this.subscription = subscription;
    return subscription;
  }

  private async ingest(events: readonly RecordedEvent[]): Promise<void> {
    await this.timeline.ingest(events);
    this.position = events.at(-1)?.position ?? this.position;
    this.subscriptionError = null;
  }

  /** Applying is idempotent per stream revision, so resuming from the last fully applied batch is safe. */
  private resubscribeLater(error: unknown, delayMs: number): void {
    this.subscriptionError = describeError(error);
    this.log({ event: 'error', phase: 'subscription', position: this.position, error: describeError(error), retryInMs: delayMs });
    if (this.stopped) return;
    this.resubscribeTimer = setTimeout(() => {
      this.resubscribeTimer = null;
      if (!this.stopped) {
        this.subscribe(Math.min(delayMs * 2, 30_000));
        this.subscriptionError = null;
      }
    }, delayMs);
  }
}
