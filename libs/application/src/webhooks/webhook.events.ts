/**
 * A tenant's webhook registration, in the log like every other write (stream `webhook-<id>`). Not in
 * the public catalogue: a registration is about a tenant's integration, not a lease or resource, and
 * its events never carry the secret (kept in the secret store beside the log, webhook-secrets.ts).
 */
export type WebhookRegistered = Readonly<{
  type: 'Webhook.Registered';
  data: Readonly<{
    webhookId: string;
    projectId: string;
    userId: string;
    url: string;
    eventTypes: readonly string[];
    registeredAt: string;
  }>;
}>;

export type WebhookDeleted = Readonly<{
  type: 'Webhook.Deleted';
  data: Readonly<{ webhookId: string; projectId: string; deletedAt: string }>;
}>;

export type WebhookEvent = WebhookRegistered | WebhookDeleted;

/** Stored but never public (history, the feed, Kafka skip them): the catalogue's spec checks they stay out of it. */
export const NON_PUBLIC_EVENT_TYPES: readonly WebhookEvent['type'][] = ['Webhook.Registered', 'Webhook.Deleted'];

export const WEBHOOK_CATEGORY = 'webhook';

export const webhookStream = (webhookId: string): string => `${WEBHOOK_CATEGORY}-${webhookId}`;

/** A registration as the log states it, with the positions it was registered (and deleted) at. */
export interface Webhook {
  readonly id: string;
  readonly projectId: string;
  readonly userId: string;
  readonly url: string;
  readonly eventTypes: readonly string[];
  readonly registeredAt: string;
  readonly registeredPosition: number;
  readonly deletedPosition: number | null;
}

/** Folds one webhook stream's events (or the `webhook` category's) into registrations by id. */
export const foldWebhooks = (
  webhooks: Map<string, Webhook>,
  events: readonly { readonly type: string; readonly data: unknown; readonly position: number }[],
): Map<string, Webhook> => {
  for (const event of events) {
    switch (event.type) {
      case 'Webhook.Registered': {
        const d = event.data as WebhookRegistered['data'];
        webhooks.set(d.webhookId, {
          id: d.webhookId,
          projectId: d.projectId,
          userId: d.userId,
          url: d.url,
          eventTypes: d.eventTypes,
          registeredAt: d.registeredAt,
          registeredPosition: event.position,
          deletedPosition: null,
        });
        break;
      }
      case 'Webhook.Deleted': {
        const d = event.data as WebhookDeleted['data'];
        const known = webhooks.get(d.webhookId);
        if (known !== undefined) webhooks.set(d.webhookId, { ...known, deletedPosition: event.position });
        break;
      }
      default:
        break;
    }
  }
  return webhooks;
};

/** Whether a registration receives the event at `position`: made before it, not deleted before it, of a type it asked for. */
export const webhookWants = (webhook: Webhook, position: number, publicType: string): boolean =>
  webhook.registeredPosition < position &&
  (webhook.deletedPosition === null || position < webhook.deletedPosition) &&
  (webhook.eventTypes.includes('*') || webhook.eventTypes.includes(publicType));
