import type { CommandBus } from '@nestjs/cqrs';
import { type FreepoolOutcome, type ZoneSupply, freepoolSupply } from '#application/reactions/freepool-watch.use-cases.js';
import { WriteIndex } from '#application/write-model/write-index.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { describeError } from '#domain/index.js';
import { reactorMetadata } from '../reactor-metadata.js';
import { ObserveFreepool } from '../commands/reactor.commands.js';
import type { ReactorLogEntry } from '../scheduler.js';
import type { FreepoolWatchConfig } from './freepool-watch.config.js';

export interface FreepoolWatchOptions {
  readonly store: EventStore;
  /** The process's CommandBus: the crossings are recorded through it. */
  readonly commands: CommandBus;
  readonly config: FreepoolWatchConfig;
  readonly clock: () => Date;
  readonly log: (entry: ReactorLogEntry) => void;
  /** Each zone as last seen, and whether it is short (for the metrics). */
  readonly observed?: (zone: ZoneSupply, short: boolean) => void;
  /** The hosts' calendars as restored from a snapshot (the first look reads the events after it); a new one when absent. */
  readonly index?: WriteIndex;
}

/**
 * Looks at every zone's free hosts over the window every `checkMs`, from the write side's calendars,
 * and records a zone crossing the threshold either way. Several reactors may watch: a crossing is
 * decided under the zone stream's revision and named by it, so it is recorded once.
 */
export class FreepoolWatchRunner {
  private readonly index: WriteIndex;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  private constructor(private readonly options: FreepoolWatchOptions) {
    this.index = options.index ?? new WriteIndex(options.store);
  }

  /** The watch in this process, or null when LEASEHOLD_FREEPOOL_WATCH_SECONDS is 0; the first look is at once. */
  static start(options: FreepoolWatchOptions): FreepoolWatchRunner | null {
    if (options.config.checkMs <= 0) return null;
    const runner = new FreepoolWatchRunner(options);
    runner.schedule(0);
    return runner;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One look now: per zone, what was recorded. */
  async checkOnce(): Promise<ReadonlyMap<string, FreepoolOutcome>> {
    await this.index.catchUp();
    const now = this.options.clock();
    const { windowMs, minFreeHosts } = this.options.config;
    // the past is never looked at again: keep the calendars to what can still overlap a window
    this.index.forgetBookingsEndedBefore(now.getTime());
    const windowStart = now.toISOString();
    const windowEnd = new Date(now.getTime() + windowMs).toISOString();
    const outcomes = new Map<string, FreepoolOutcome>();
    for (const zone of freepoolSupply(this.index.registeredHosts(), now.getTime(), now.getTime() + windowMs)) {
      const cause = `freepool-watch:${zone.zone}:${windowStart}`;
      const outcome = await this.options.commands.execute(
        new ObserveFreepool(
          { ...zone, threshold: minFreeHosts, windowStart, windowEnd, observedAt: windowStart },
          reactorMetadata({ correlationId: cause, causationId: cause }, () => now),
        ),
      );
      outcomes.set(zone.zone, outcome);
      this.options.observed?.(zone, zone.freeHosts < minFreeHosts);
      if (outcome !== 'unchanged')
        this.options.log({
          event: 'freepool',
          zone: zone.zone,
          outcome,
          freeHosts: zone.freeHosts,
          reservableHosts: zone.reservableHosts,
          threshold: minFreeHosts,
        });
    }
    return outcomes;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.checkOnce().then(
        () => this.schedule(this.options.config.checkMs),
        (error: unknown) => {
          this.options.log({
            event: 'error',
            phase: 'freepool-watch',
            error: describeError(error),
            retryInMs: this.options.config.checkMs,
          });
          this.schedule(this.options.config.checkMs);
        },
      );
    }, delayMs);
  }
}
