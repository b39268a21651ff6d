import type { EventStore } from '#event-store/event-store.port.js';
import type { PublicEvent } from '#application/outbound/public-event.js';
import type { NewDelivery, PendingWebhook, WebhookDeliveries } from '#application/webhooks/webhook-deliveries.store.js';
import { WebhookRegistry } from '#application/webhooks/webhook-registry.js';
import { webhookWants } from '#application/webhooks/webhook.events.js';
import type { OutboundChannel } from '../channel.js';
import { cloudEventOf } from '../cloud-event.js';
import type { WebhookWorker } from './webhook-worker.js';

/**
 * The webhook channel: turns each public lease event into one queued delivery per webhook of the
 * lease's project that asked for its type, and acknowledges once they are committed to the queue.
 * Sending is the worker's, so no receiver, however slow, holds back the log reader or another webhook.
 */
export class WebhookChannel implements OutboundChannel {
  readonly name = 'webhooks';
  private readonly registry: WebhookRegistry;

  constructor(
    store: EventStore,
    private readonly deliveries: WebhookDeliveries,
    private readonly worker: WebhookWorker,
    private readonly source: string,
    private readonly clock: () => number = Date.now,
  ) {
    this.registry = new WebhookRegistry(store);
  }

  start(): void {
    this.worker.start();
  }

  async publish(events: readonly PublicEvent[]): Promise<void> {
    await this.refreshRegistry();
    const leases = new Map<string, string>();
    const queued: NewDelivery[] = [];
    const woken = new Map<string, PendingWebhook>();
    for (const event of events) {
      if (event.subject.kind !== 'lease') continue;
      const leaseId = event.subject.id;
      if (event.type === 'lease.created' && typeof event.data.project_id === 'string') leases.set(leaseId, event.data.project_id);
      const projectId = leases.get(leaseId) ?? this.deliveries.projectOf(leaseId);
      if (projectId === null) continue;
      for (const delivery of this.deliveriesOf(event, leaseId, projectId)) {
        queued.push(delivery);
        woken.set(delivery.webhookId, { webhookId: delivery.webhookId, projectId });
      }
    }
    this.deliveries.enqueue(
      [...leases].map(([leaseId, projectId]) => ({ leaseId, projectId })),
      queued,
      this.clock(),
    );
    if (woken.size > 0) this.worker.wake(woken.values());
  }

  async status(): Promise<Readonly<Record<string, unknown>>> {
    return { webhooks: this.registry.size, ...this.worker.status() };
  }

  async close(): Promise<void> {
    await this.worker.stop();
  }

  private deliveriesOf(event: PublicEvent, leaseId: string, projectId: string): NewDelivery[] {
    const wanting = this.registry.ofProject(projectId).filter((webhook) => webhookWants(webhook, event.position, event.type));
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
    await this.registry.catchUp((events) => {
      for (const event of events)
        if (event.type === 'Webhook.Deleted') this.deliveries.drop((event.data as { webhookId: string }).webhookId);
    });
  }
}
