import { HOST_CATEGORY, type EnrollmentOutcome, type HostEvent } from '#domain/index.js';
import type { CommandBus } from '@nestjs/cqrs';
import type { EnrollmentDirection, EnrollmentRecorded } from '#application/reactions/host-reactions.use-cases.js';
import type { EventStore, RecordedEvent, Subscription } from '#event-store/event-store.port.js';
import { EffectFailedError } from '#plugins/effects.port.js';
import type { EnrollmentTarget, HostEnrollmentEffects } from '#plugins/openstack/enrollment/host-enrollment.adapter.js';
import { reactorMetadata } from './reactor-metadata.js';
import { RecordHostEnrollment } from './commands/reactor.commands.js';
import type { ReactorLogEntry } from './scheduler.js';
import { describeError } from '#domain/index.js';

export interface HostEnrollmentOptions {
  readonly store: EventStore;
  /** The process's CommandBus: the outcomes are recorded through it. */
  readonly commands: CommandBus;
  readonly effects: HostEnrollmentEffects;
  readonly clock: () => Date;
  readonly log: (entry: ReactorLogEntry) => void;
  /** First transient-failure retry delay, doubled per attempt up to retryMaxMs (defaults 1 s and 30 s). */
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
}

/** A registration or removal whose cloud side is still owed. */
interface Owed {
  readonly hostId: string;
  readonly direction: EnrollmentDirection;
  readonly target: EnrollmentTarget;
  /** The Host.Registered / Host.Unregistered this reacts to. */
  readonly source: RecordedEvent;
}

interface HostProgress {
  target: EnrollmentTarget;
  registered: RecordedEvent | null;
  unregistered: RecordedEvent | null;
  enrolled: boolean;
  unenrolled: boolean;
}

const OUTCOME_TYPES: Readonly<Record<string, EnrollmentDirection>> = {
  'Host.Enrolled': 'enroll',
  'Host.EnrollmentFailed': 'enroll',
  'Host.Unenrolled': 'unenroll',
  'Host.UnenrollmentFailed': 'unenroll',
};

/**
 * Puts registered hosts into the cloud's free pool and takes removed ones out, recording each outcome
 * on the host's stream. What is owed is derived from the log (a registration or removal without its
 * outcome), so work missed while the reactor was down is done at start. One host name's work runs in
 * log order (a name registered again after removal is enrolled after its old host left); a transient
 * failure is retried with backoff without holding up other hosts.
 */
export class HostEnrollment {
  private readonly hosts = new Map<string, HostProgress>();
  private readonly backoff = new Map<string, { readonly attempt: number; readonly notBefore: number }>();
  private subscription: Subscription | null = null;
  private position = 0;
  private timer: NodeJS.Timeout | null = null;
  private resubscribeTimer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  private constructor(private readonly options: HostEnrollmentOptions) {}

  /** Resolves once the log has been read to its head; the owed work then starts. */
  static async start(options: HostEnrollmentOptions): Promise<HostEnrollment> {
    const enrollment = new HostEnrollment(options);
    await enrollment.subscribe(1_000).caughtUp;
    enrollment.options.log({ event: 'host-enrollment-start', owed: enrollment.owed().length });
    enrollment.wake();
    return enrollment;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    if (this.resubscribeTimer !== null) clearTimeout(this.resubscribeTimer);
    await this.subscription?.stop();
    await this.running;
  }

  /** Resumes after the last applied batch when the store fails (applying a batch twice changes nothing). */
  private subscribe(retryDelayMs: number): Subscription {
    this.subscription = this.options.store.subscribeToAll({
      from: this.position,
      filter: { categories: [HOST_CATEGORY] },
      onEvents: (events) => Promise.resolve(this.ingest(events)),
      onError: (error) => {
        this.options.log({
          event: 'error',
          phase: 'host-enrollment-subscription',
          position: this.position,
          error: describeError(error),
          retryInMs: retryDelayMs,
        });
        if (this.stopped) return;
        this.resubscribeTimer = setTimeout(() => {
          this.resubscribeTimer = null;
          if (!this.stopped) this.subscribe(Math.min(retryDelayMs * 2, 30_000));
        }, retryDelayMs);
      },
    });
    return this.subscription;
  }

  /** Registrations and removals still without an outcome, in log order. */
  owed(): Owed[] {
    const owed: Owed[] = [];
    for (const [hostId, host] of this.hosts) {
      const { target } = host;
      if (host.registered !== null && host.unregistered === null && !host.enrolled)
        owed.push({ hostId, direction: 'enroll', target, source: host.registered });
      if (host.unregistered !== null && !host.unenrolled) owed.push({ hostId, direction: 'unenroll', target, source: host.unregistered });
    }
    return owed.sort((a, b) => a.source.position - b.source.position);
  }

  private ingest(events: readonly RecordedEvent[]): void {
    for (const recorded of events) this.apply(recorded);
    this.position = events.at(-1)?.position ?? this.position;
    this.wake();
  }

  private apply(recorded: RecordedEvent): void {
    const event = { type: recorded.type, data: recorded.data } as HostEvent;
    if (event.type === 'Host.Registered') {
      if (this.hosts.has(event.data.hostId)) return;
      const { hypervisorHostname, serviceName, availabilityZone } = event.data.info;
      const target = { hypervisorHostname, serviceName, availabilityZone };
      this.hosts.set(event.data.hostId, { target, registered: recorded, unregistered: null, enrolled: false, unenrolled: false });
      return;
    }
    const host = this.hosts.get(event.data.hostId);
    if (host === undefined) return;
    if (event.type === 'Host.Unregistered') host.unregistered = recorded;
    const direction = OUTCOME_TYPES[event.type];
    if (direction === 'enroll') host.enrolled = true;
    if (direction === 'unenroll') host.unenrolled = true;
  }

  private wake(): void {
    if (this.stopped || this.running !== null) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.drain().finally(() => {
      this.running = null;
      // events ingested while the last pass was finishing may have brought new work
      if (this.nextRunnable() === undefined) this.arm();
      else this.wake();
    });
  }

  /** Runs what is owed and runnable now, one at a time. */
  private async drain(): Promise<void> {
    for (let next = this.nextRunnable(); next !== undefined && !this.stopped; next = this.nextRunnable()) {
      await this.run(next);
    }
  }

  /** The earliest owed work of each host name, unless it waits for a retry. */
  private nextRunnable(): Owed | undefined {
    const now = this.options.clock().getTime();
    const names = new Set<string>();
    for (const owed of this.owed()) {
      const name = owed.target.hypervisorHostname;
      if (names.has(name)) continue;
      names.add(name);
      if ((this.backoff.get(owed.source.id)?.notBefore ?? 0) <= now) return owed;
    }
    return undefined;
  }

  /** Sleeps until the earliest retry is due (new events wake it sooner). */
  private arm(): void {
    if (this.stopped) return;
    const retries = this.owed().flatMap((owed) => {
      const backoff = this.backoff.get(owed.source.id);
      return backoff === undefined ? [] : [backoff.notBefore];
    });
    if (retries.length === 0) return;
    const delay = Math.max(0, Math.min(...retries) - this.options.clock().getTime());
    this.timer = setTimeout(() => this.wake(), delay);
  }

  private async run(owed: Owed): Promise<void> {
    const { hostId, direction } = owed;
    const key = `${owed.source.id}:host-${direction}`;
    try {
      const outcome = await this.outcomeOf(owed, key);
      const result = await this.record(owed, outcome);
      this.backoff.delete(owed.source.id);
      this.options.log({ event: 'host-enrollment', hostId, direction, result, ...(outcome.ok ? {} : { error: outcome.error }) });
    } catch (error) {
      const attempt = (this.backoff.get(owed.source.id)?.attempt ?? 0) + 1;
      const delay = Math.min((this.options.retryBaseMs ?? 1_000) * 2 ** (attempt - 1), this.options.retryMaxMs ?? 30_000);
      this.backoff.set(owed.source.id, { attempt, notBefore: this.options.clock().getTime() + delay });
      this.options.log({ event: 'retry', phase: `host-${direction}`, hostId, attempt, inMs: delay, error: describeError(error) });
    }
  }

  private async outcomeOf(owed: Owed, key: string): Promise<EnrollmentOutcome> {
    const { effects } = this.options;
    try {
      const done = owed.direction === 'enroll' ? await effects.enroll(owed.target, key) : await effects.unenroll(owed.target, key);
      return { ok: true, effects: done };
    } catch (error) {
      if (!(error instanceof EffectFailedError)) throw error;
      return { ok: false, error: error.message, effects: error.effects };
    }
  }

  /** Records the outcome (on the host as the ledger has it); says what became of it, for the log. */
  private async record(owed: Owed, outcome: EnrollmentOutcome): Promise<string> {
    const { hostId, direction, source } = owed;
    const metadata = reactorMetadata({ correlationId: source.metadata.correlationId, causationId: source.id }, this.options.clock);
    const recorded = await this.options.commands.execute(new RecordHostEnrollment({ hostId, direction, outcome }, metadata));
    return this.settled(owed, this.described(recorded));
  }

  private described(recorded: EnrollmentRecorded): string {
    switch (recorded.status) {
      case 'recorded':
        return recorded.type;
      case 'already-recorded':
        return 'already recorded';
      case 'replayed':
        return 'recorded by another reactor';
      case 'superseded':
        return `superseded: ${recorded.reason}`;
      default: {
        const _never: never = recorded;
        return _never;
      }
    }
  }

  private settled(owed: Owed, result: string): string {
    const host = this.hosts.get(owed.hostId);
    if (host !== undefined && owed.direction === 'enroll') host.enrolled = true;
    if (host !== undefined && owed.direction === 'unenroll') host.unenrolled = true;
    return result;
  }
}
