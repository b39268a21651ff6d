import type { CommandBus } from '@nestjs/cqrs';
import type { HealthOutcome } from '#application/reactions/host-reactions.use-cases.js';
import type { ComputeService } from '#plugins/openstack/index.js';
import { reactorMetadata } from '../reactor-metadata.js';
import { ReportHostHealth } from '../commands/reactor.commands.js';
import type { ReactorLogEntry } from '../scheduler.js';
import { pollingReasons } from './host-health.reasons.js';
import type { ManagedHosts } from './managed-hosts.js';
import { describeError } from '#domain/index.js';

export interface HostPollingMonitorOptions {
  /** Nova's nova-compute services (os-services?binary=nova-compute). */
  readonly listComputeServices: () => Promise<readonly ComputeService[]>;
  readonly hosts: ManagedHosts;
  readonly commands: CommandBus;
  readonly intervalMs: number;
  readonly clock: () => Date;
  readonly log: (entry: ReactorLogEntry) => void;
}

/**
 * The fallback monitor, and the only one that sees a nova-compute that stopped (Nova emits nothing
 * then; it only answers `down` once the heartbeats are older than its service_down_time). Reports
 * every Leasehold host's health on each poll; the host decider records changes only.
 */
export class HostPollingMonitor {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly options: HostPollingMonitorOptions) {}

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    await this.running;
  }

  /** One poll: per Leasehold host with a nova-compute, the outcome of its report. */
  async pollOnce(): Promise<ReadonlyMap<string, HealthOutcome>> {
    const [services, hosts] = await Promise.all([this.options.listComputeServices(), this.options.hosts.list()]);
    const observedAt = this.options.clock().toISOString();
    const outcomes = new Map<string, HealthOutcome>();
    for (const host of hosts) {
      const service = services.find((s) => s.binary === 'nova-compute' && s.host === host.serviceHost);
      if (service === undefined) {
        this.options.log({ event: 'host-poll-no-service', hostId: host.hostId, serviceHost: host.serviceHost });
        continue;
      }
      const reasons = pollingReasons(service);
      const poll = `host-poll:${host.hostId}:${observedAt}`;
      const outcome = await this.options.commands.execute(
        new ReportHostHealth(
          { hostId: host.hostId, observedAt, observation: { source: 'polling', reasons } },
          reactorMetadata({ correlationId: poll, causationId: poll }, this.options.clock),
        ),
      );
      outcomes.set(host.hostId, outcome);
      if (outcome !== 'unchanged') this.options.log({ event: 'host-health', source: 'polling', hostId: host.hostId, outcome, reasons });
    }
    return outcomes;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.tick().finally(() => {
        this.running = null;
        this.schedule(this.options.intervalMs);
      });
    }, delayMs);
  }

  private async tick(): Promise<void> {
    try {
      await this.pollOnce();
    } catch (error) {
      this.options.log({ event: 'error', phase: 'host-polling', error: describeError(error), retryInMs: this.options.intervalMs });
    }
  }
}
