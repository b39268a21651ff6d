import { DomainError, invalid, notFound } from '#domain/index.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { type AppCommand, eventMetadata } from '../command.js';
import { type Caller, authorize } from '../caller.js';
import type { CommandHandler } from '../command-handler.js';
import { EVENT_CATALOGUE } from '../history/event-catalogue.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import type { DeliveryView, WebhookDeliveries } from './webhook-deliveries.store.js';
import { WebhookRegistry } from './webhook-registry.js';
import type { WebhookSecrets } from './webhook-secrets.store.js';
import { type Webhook, type WebhookDeleted, type WebhookRegistered, foldWebhooks, webhookStream } from './webhook.events.js';

/** The public types a webhook may ask for: those about a lease (`lease.*`, `reservation.*`), or `*` for all of them. */
export const WEBHOOK_EVENT_TYPES: readonly string[] = [
  ...new Set(
    Object.values(EVENT_CATALOGUE)
      .map((entry) => entry.publicType)
      .filter((type) => type.startsWith('lease.') || type.startsWith('reservation.')),
  ),
].sort();

export interface NewWebhook {
  readonly url: string;
  readonly eventTypes: readonly string[];
  readonly secret: string;
}

export type RegisterWebhook = AppCommand<'RegisterWebhook', { readonly webhook: NewWebhook }>;
export type DeleteWebhook = AppCommand<'DeleteWebhook', { readonly webhookId: string }>;

/** What API clients see of a registration; never the secret. */
export interface WebhookView {
  readonly id: string;
  readonly project_id: string;
  readonly user_id: string;
  readonly url: string;
  readonly event_types: readonly string[];
  readonly created_at: string;
}

export const toWebhookView = (webhook: Webhook): WebhookView => ({
  id: webhook.id,
  project_id: webhook.projectId,
  user_id: webhook.userId,
  url: webhook.url,
  event_types: webhook.eventTypes,
  created_at: webhook.registeredAt,
});

export const webhookNotFound = (webhookId: string): DomainError => notFound('WEBHOOK_NOT_FOUND', `Webhook ${webhookId} could not be found`);

export const webhooksDisabled = (): DomainError =>
  invalid('WEBHOOKS_DISABLED', 'Webhooks are not enabled on this deployment (the operator sets LEASEHOLD_WEBHOOKS=on)');

/** 403 as a quota exceeded is: the request is well formed, the project may not have more. */
export const webhookLimitReached = (projectId: string, limit: number): DomainError =>
  new DomainError(
    'WEBHOOK_LIMIT_REACHED',
    'forbidden',
    `Project ${projectId} has ${limit} webhooks, the most it may register (LEASEHOLD_WEBHOOK_MAX_PER_PROJECT); delete one to register another`,
  );

/** The checks a registration's target needs beyond its form (webhook-targets.ts): the operator's allow-list, resolved now. */
export type CheckTarget = (url: URL) => Promise<void>;

export interface WebhookUseCasesDeps {
  readonly handler: CommandHandler;
  readonly store: EventStore;
  readonly secrets: WebhookSecrets;
  /** null: the publisher never ran with webhooks on, so no delivery exists yet. */
  readonly deliveries: () => WebhookDeliveries | null;
  readonly checkTarget: CheckTarget;
  readonly newId: () => string;
  readonly enabled: boolean;
  /** LEASEHOLD_WEBHOOK_MAX_PER_PROJECT: registrations a project may have at once. */
  readonly maxPerProject: number;
}

/**
 * Tenant webhooks (docs/webhooks.md): a registration is a write to the log (`webhook-<id>`), its
 * secret goes to the secret store; members see and change their project's, admins every project's.
 */
export class WebhookUseCases {
  private readonly registry: WebhookRegistry;

  constructor(private readonly deps: WebhookUseCasesDeps) {
    this.registry = new WebhookRegistry(deps.store);
  }

  async register(command: RegisterWebhook): Promise<{ readonly webhook: WebhookView; readonly position: number }> {
    const { actor, now } = command.metadata;
    authorize(actor, ACTIONS.webhookPost);
    if (!this.deps.enabled) throw webhooksDisabled();
    const { url, eventTypes, secret } = command.data.webhook;
    await this.deps.checkTarget(new URL(url));
    const webhookId = this.deps.newId();
    const event: WebhookRegistered = {
      type: 'Webhook.Registered',
      data: { webhookId, projectId: actor.projectId, userId: actor.userId, url, eventTypes, registeredAt: now },
    };
    const { position } = await this.deps.handler.handle(async () => {
      // counted under the handler's lock, so registrations decided at once in this process cannot pass the limit together
      await this.registry.catchUp();
      if (this.registry.activeOf(actor.projectId).length >= this.deps.maxPerProject)
        throw webhookLimitReached(actor.projectId, this.deps.maxPerProject);
      // the secret first: a registration in the log always has one; a secret whose append failed is never read
      this.deps.secrets.put(webhookId, secret, now);
      return {
        appends: [
          {
            streamId: webhookStream(webhookId),
            expectedRevision: 'no_stream',
            events: [{ id: this.deps.newId(), ...event, metadata: eventMetadata(command.metadata) }],
          },
        ],
        result: null,
      };
    });
    return { webhook: toWebhookView({ ...event.data, id: webhookId, registeredPosition: position, deletedPosition: null }), position };
  }

  async remove(command: DeleteWebhook): Promise<{ readonly position: number }> {
    const { webhookId } = command.data;
    const { webhook, revision } = await this.load(webhookId);
    authorize(command.metadata.actor, ACTIONS.webhookDelete, { project_id: webhook.projectId });
    const event: WebhookDeleted = {
      type: 'Webhook.Deleted',
      data: { webhookId, projectId: webhook.projectId, deletedAt: command.metadata.now },
    };
    const handled = await this.deps.handler.handle(async () => ({
      appends: [
        {
          streamId: webhookStream(webhookId),
          expectedRevision: revision,
          events: [{ id: this.deps.newId(), ...event, metadata: eventMetadata(command.metadata) }],
        },
      ],
      result: null,
    }));
    this.deps.secrets.remove(webhookId);
    return { position: handled.position };
  }

  /** Members: their project's webhooks; admins: every project's (newest registrations last). */
  async list(caller: Caller): Promise<WebhookView[]> {
    authorize(caller, ACTIONS.webhookGet);
    await this.registry.catchUp();
    return [...this.registry.all()]
      .filter((webhook) => webhook.deletedPosition === null && (caller.isAdmin || webhook.projectId === caller.projectId))
      .map(toWebhookView);
  }

  async show(caller: Caller, webhookId: string): Promise<WebhookView> {
    const { webhook } = await this.load(webhookId);
    authorize(caller, ACTIONS.webhookGet, { project_id: webhook.projectId });
    return toWebhookView(webhook);
  }

  /** Every delivery and attempt the publisher recorded for the webhook, newest first (at most `limit`). */
  async deliveries(caller: Caller, webhookId: string, limit: number): Promise<DeliveryView[]> {
    const { webhook } = await this.load(webhookId);
    authorize(caller, ACTIONS.webhookGet, { project_id: webhook.projectId });
    return this.deps.deliveries()?.list(webhook.id, limit) ?? [];
  }

  private async load(webhookId: string): Promise<{ readonly webhook: Webhook; readonly revision: number }> {
    const events = await this.deps.store.readStream(webhookStream(webhookId));
    const webhook = foldWebhooks(new Map(), events).get(webhookId);
    if (webhook === undefined || webhook.deletedPosition !== null) throw webhookNotFound(webhookId);
    return { webhook, revision: events.length - 1 };
  }
}
