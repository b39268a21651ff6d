import { LEASE_CATEGORY, type LeaseEvent, describeError, foldEvents } from '#domain/index.js';
import type { EnforcementConfig } from '#application/enforcement/enforcement.config.js';
import { indexResources } from '#application/enforcement/index-resources.js';
import { type UsageEnforcement, usageEnforcement } from '#application/enforcement/usage-enforcement.js';
import { WriteIndex } from '#application/write-model/write-index.js';
import { HttpExternalEnforcement } from '#plugins/enforcement/external-enforcement.http.js';
import type { EventStore, RecordedEvent, Subscription } from '#event-store/event-store.port.js';
import { leaseDecider } from '#plugins/lease.decider.js';
import type { ReactorLogEntry } from './scheduler.js';

export interface EnforcementOnEndOptions {
  readonly store: EventStore;
  readonly enforcement: UsageEnforcement;
  /** The registry the allocations' details come from (hostnames, capabilities, addresses). */
  readonly index: WriteIndex;
  readonly log: (entry: ReactorLogEntry) => void;
}

/**
 * Upstream's on_end: every enforcement filter hears of a lease once it ended (its end effects done,
 * or deleted before it started). A notification, not durable work: it follows the log from where it
 * was when the reactor started, nothing it answers changes the lease, and each outcome is logged.
 */
export class EnforcementOnEnd {
  private subscription: Subscription | null = null;

  private constructor(private readonly options: EnforcementOnEndOptions) {}

  static async start(options: EnforcementOnEndOptions): Promise<EnforcementOnEnd> {
    const onEnd = new EnforcementOnEnd(options);
    const from = await options.store.headPosition();
    onEnd.subscription = options.store.subscribeToAll({
      from,
      filter: { categories: [LEASE_CATEGORY] },
      onEvents: (events) => onEnd.ingest(events),
      onError: (error) => options.log({ event: 'error', phase: 'enforcement.on-end', error: describeError(error) }),
    });
    return onEnd;
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
  }

  private async ingest(events: readonly RecordedEvent[]): Promise<void> {
    for (const event of events) {
      if (event.type === 'Lease.Ended' || event.type === 'Lease.Deleted') await this.notify(event);
    }
  }

  /** A lease deleted after it started is heard of at its Lease.Ended, which its end effects record after the delete. */
  private async notify(event: RecordedEvent): Promise<void> {
    const recorded = await this.options.store.readStream(event.streamId);
    const upTo = recorded.filter((e) => e.position <= event.position).map((e) => ({ type: e.type, data: e.data }) as LeaseEvent);
    if (event.type === 'Lease.Deleted' && upTo.some((e) => e.type === 'Lease.EndRequested')) return;
    const state = foldEvents(leaseDecider, upTo);
    if (state.status === 'Initial') return;
    const { lease } = state;
    await this.options.index.catchUp();
    const context = this.options.enforcement.contextOf({ userId: lease.userId, projectId: lease.projectId });
    const outcomes = await this.options.enforcement.onEnd(context, lease);
    for (const { filter, error } of outcomes) {
      this.options.log({
        event: error === null ? 'enforcement.on-end' : 'error',
        phase: 'enforcement.on-end',
        filter,
        leaseId: lease.leaseId,
        ...(error === null ? {} : { error }),
      });
    }
  }
}

/** The configured filters told of each end; null without filters (no lease end to tell anyone of). */
export const startEnforcementOnEnd = async (
  config: EnforcementConfig,
  store: EventStore,
  log: (entry: ReactorLogEntry) => void,
): Promise<EnforcementOnEnd | null> => {
  if (config.filters.length === 0) return null;
  const index = new WriteIndex(store);
  const service = config.external === null ? null : new HttpExternalEnforcement(config.external);
  const warn = (message: string): void => log({ event: 'warning', phase: 'enforcement', message });
  const enforcement = usageEnforcement({ config, service, resources: indexResources(index), warn });
  return EnforcementOnEnd.start({ store, enforcement, index, log });
};
