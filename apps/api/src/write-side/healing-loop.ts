import type { HealingPass, LeaseHealer } from './lease-healer.js';

export interface HealingLoopOptions {
  /** Time between two passes; 0: no healing in this process. */
  readonly checkMs: number;
  readonly log: (line: Record<string, unknown>) => void;
}

/**
 * Runs healing passes one after another, `checkMs` apart: a host reported down (by the reactor's
 * monitors, into the log) is healed at the next pass, and reservations that enter the healing window
 * later at a later one. Every API process may run it: passes decide under stream revisions, so two
 * processes never heal one reservation twice.
 */
export class HealingLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly healer: LeaseHealer,
    private readonly options: HealingLoopOptions,
  ) {}

  start(): void {
    if (this.options.checkMs <= 0 || this.timer !== null) return;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runPass().finally(() => {
        this.running = null;
        this.schedule();
      });
    }, this.options.checkMs);
    this.timer.unref();
  }

  private async runPass(): Promise<void> {
    try {
      const pass: HealingPass = await this.healer.pass();
      if (pass.healed.length > 0 || pass.deferred.length > 0) {
        this.options.log({ healing: 'pass', down_hosts: pass.downHostIds, examined: pass.examined, healed: pass.healed, deferred: pass.deferred });
      }
    } catch (error) {
      this.options.log({ healing: 'failed', error: error instanceof Error ? error.message : String(error) });
    }
  }
}
