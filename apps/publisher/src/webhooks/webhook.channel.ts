import type { EventStore } from '#event-store/event-store.port.js';
import type { PublicEvent } from '#application/outbound/public-event.js';
import type { NewDelivery, WebhookDeliveries } from '#application/webhooks/webhook-deliveries.store.js';
import { WEBHOOK_CATEGORY, type Webhook, foldWebhooks, webhookWants } from '#application/webhooks/webhook.events.js';
import type { OutboundChannel } from '../channel.js';
import { cloudEventOf } from '../cloud-event.js';
import type { WebhookWorker } from './webhook-worker.js';

/** Registrations read per request while catching up with the `webhook` streams. */
const REGISTRY_PAGE = 1_000;

/**
 * The webhook channel: turns each public lease event into one queued delivery per webhook of the
 * lease's project that asked for its type, and acknowledges once they are committed to the queue.
 * Sending is the worker's, so no receiver, however slow, holds back the log reader or another webhook.
 */
export class WebhookChannel implements OutboundChannel {
  readonly name = 'webhooks';
  private readonly registry = new Map<string, Webhook>();
  private registryPosition = 0;

  constructor(
    private readonly store: EventStore,
    private readonly deliveries: WebhookDeliveries,
    private readonly worker: WebhookWorker,
    private readonly source: string,
    private readonly clock: () => number = Date.now,
  ) {}

  start(): void {
    this.worker.start();
  }

  async publish(events: readonly PublicEvent[]): Promise<void> {
    await this.refreshRegistry();
    const leases = new Map<string, string>();
    const queued: NewDelivery[] = [];
    for (const event of events) {
      if (event.subject.kind !== 'lease') continue;
      const leaseId = event.subject.id;
      if (event.type === 'lease.created' && typeof event.data.project_id === 'string') leases.set(leaseId, event.data.project_id);
      const projectId = leases.get(leaseId) ?? this.deliveries.projectOf(leaseId);
      if (projectId === null) continue;
      queued.push(...this.deliveriesOf(event, leaseId, projectId));
    }
    this.deliveries.enqueue(
      [...leases].map(([leaseId, projectId]) => ({ leaseId, projectId })),
      queued,
      this.clock(),
    );
    if (queued.length > 0) this.worker.wake(new Set(queued.map((delivery) => delivery.webhookId)));
  }

  async status(): Promise<Readonly<Record<string, unknown>>> {
    return { webhooks: this.registry.size, ...this.worker.status() };
  }

  async close(): Promise<void> {
    await this.worker.stop();
  }

  private deliveriesOf(event: PublicEvent, leaseId: string, projectId: string): NewDelivery[] {
    const wanting = [...this.registry.values()].filter(
      (webhook) => webhook.projectId === projectId && webhookWants(webhook, event.position, event.type),
    );
    if (wanting.length === 0) return [];
    const body = JSON.stringify(cloudEventOf(event, this.source));
    return wanting.map((webhook) => ({
      webhookId: webhook.id,
      url: webhook.url,
      eventId: event.id,
      eventType: event.type,
      leaseId,
      position: event.position,
      body,
    }));
  }

  /** Registrations up to the log's head: each is matched only with events after its own position. */
  private async refreshRegistry(): Promise<void> {
    for (;;) {
      const events = await this.store.readAll({
        from: this.registryPosition,
        limit: REGISTRY_PAGE,
        filter: { categories: [WEBHOOK_CATEGORY] },
      });
      const last = events.at(-1);
      if (last === undefined) return;
      foldWebhooks(this.registry, events);
      for (const event of events)
        if (event.type === 'Webhook.Deleted') this.deliveries.drop((event.data as { webhookId: string }).webhookId);
      this.registryPosition = last.position;
    }
  }
}
