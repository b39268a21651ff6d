import { randomUUID } from 'node:crypto';
import { systemCaller } from '#application/caller.js';
import type { CommandBus } from '@nestjs/cqrs';
import type { HealingPass } from '#application/healing/healing.use-case.js';
import { HOST_CATEGORY } from '#domain/index.js';
import type { EventStore, RecordedEvent, Subscription } from '#event-store/event-store.port.js';
import type { ReactorLogEntry } from '../scheduler.js';
import { describeError } from '#domain/index.js';
import { HealReservations } from '../commands/reactor.commands.js';

/** Host events after which reservations may hold a host that is down. */
export const HOST_DOWN_EVENTS = ['Host.WentDown', 'Host.DownReasonsChanged'] as const;

export interface HealingRunnerOptions {
  readonly store: EventStore;
  /** The process's CommandBus, whose HealReservations handler runs this process's healing. */
  readonly commands: CommandBus;
  /** Time between two periodic passes (reservations that enter the healing window later). */
  readonly checkMs: number;
  readonly clock: () => Date;
  readonly log: (entry: ReactorLogEntry) => void;
}

const ACTOR = systemCaller('healing');

/**
 * Runs healing passes in the reactor: one as soon as a host goes down (a subscription to the hosts'
 * down events from the log's head on), and one every `checkMs` for reservations that enter the
 * healing window later, for replacements that freed up, and for hosts that were down before this
 * process started. Passes run one at a time; requests made while one waits are served by it. Several
 * reactors may run them: passes decide under stream revisions, so no reservation is healed twice.
 */
export class HealingRunner {
  private subscription: Subscription | null = null;
  private timer: NodeJS.Timeout | null = null;
  private tail: Promise<void> = Promise.resolve();
  private waiting: Promise<void> | null = null;
  private position = 0;
  private stopped = false;

  private constructor(private readonly options: HealingRunnerOptions) {}

  /** Follows the log from its head; the first periodic pass looks at what was already down. */
  static async start(options: HealingRunnerOptions): Promise<HealingRunner> {
    const runner = new HealingRunner(options);
    runner.position = await options.store.headPosition();
    runner.subscribe();
    runner.schedule(0);
    return runner;
  }

  /** Resolves once the pass in progress (if any) has recorded its decisions. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.subscription?.stop();
    await this.tail;
  }

  /** A pass as soon as the one in progress is done; a request while another waits joins it. */
  request(causationId: string): Promise<void> {
    if (this.waiting !== null) return this.waiting;
    const pass = this.tail.then(() => {
      this.waiting = null;
      return this.stopped ? undefined : this.runPass(causationId);
    });
    this.waiting = pass;
    this.tail = pass;
    return pass;
  }

  private subscribe(): void {
    this.subscription = this.options.store.subscribeToAll({
      from: this.position,
      filter: { categories: [HOST_CATEGORY], types: [...HOST_DOWN_EVENTS] },
      onEvents: (events) => this.hostsWentDown(events),
      onError: (error) => this.resubscribeLater(error),
    });
  }

  private hostsWentDown(events: readonly RecordedEvent[]): Promise<void> {
    const last = events.at(-1);
    if (last === undefined) return Promise.resolve();
    this.position = last.position;
    void this.request(last.id);
    return Promise.resolve();
  }

  /** The periodic passes go on meanwhile, so a host that went down is still healed, only later. */
  private resubscribeLater(error: unknown): void {
    this.options.log({ event: 'error', phase: 'healing.subscription', position: this.position, error: describeError(error) });
    if (this.stopped) return;
    setTimeout(() => {
      if (!this.stopped) this.subscribe();
    }, this.options.checkMs).unref();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.request(randomUUID()).finally(() => this.schedule(this.options.checkMs));
    }, delayMs);
    this.timer.unref();
  }

  private async runPass(causationId: string): Promise<void> {
    const command = new HealReservations(
      {},
      { actor: ACTOR, correlationId: causationId, causationId, now: this.options.clock().toISOString() },
    );
    try {
      const pass: HealingPass = await this.options.commands.execute(command);
      if (pass.healed.length > 0 || pass.deferred.length > 0) {
        this.options.log({
          event: 'healing',
          down_hosts: pass.downHostIds,
          examined: pass.examined,
          healed: pass.healed,
          deferred: pass.deferred,
        });
      }
    } catch (error) {
      this.options.log({ event: 'error', phase: 'healing', error: describeError(error) });
    }
  }
}
