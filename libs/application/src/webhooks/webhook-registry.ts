import type { EventStore, FoldableEvent } from '#event-store/event-store.port.js';
import { AsyncMutex } from '../write-model/async-mutex.js';
import { WEBHOOK_CATEGORY, type Webhook, type WebhookRegistered, foldWebhooks } from './webhook.events.js';

/** Registrations read per request while catching up with the `webhook` streams. */
const PAGE = 1_000;

/**
 * Every registration as the log states it (deleted ones too, with the position of their deletion), kept
 * in memory and caught up before each use: a use reads only the registrations and deletions made since
 * the last one, not the whole `webhook` category again.
 */
export class WebhookRegistry {
  private readonly webhooks = new Map<string, Webhook>();
  private readonly byProject = new Map<string, Set<string>>();
  private position = 0;
  private readonly lock = new AsyncMutex();

  constructor(private readonly store: EventStore) {}

  /** Up to the log's head; `onPage` sees each page of events folded in (the publisher drops a deleted webhook's queue). */
  catchUp(onPage: (events: readonly FoldableEvent[]) => void = () => undefined): Promise<void> {
    return this.lock.run(async () => {
      for (;;) {
        const events = await this.store.readAll({ from: this.position, limit: PAGE, filter: { categories: [WEBHOOK_CATEGORY] } });
        const last = events.at(-1);
        if (last === undefined) return;
        foldWebhooks(this.webhooks, events);
        for (const event of events) this.index(event);
        onPage(events);
        this.position = last.position;
      }
    });
  }

  get size(): number {
    return this.webhooks.size;
  }

  /** In registration order (the log's). */
  all(): IterableIterator<Webhook> {
    return this.webhooks.values();
  }

  /** The project's registrations, deleted ones too (an event recorded before a deletion is still for it), in registration order. */
  ofProject(projectId: string): Webhook[] {
    return [...(this.byProject.get(projectId) ?? [])].flatMap((webhookId) => this.webhooks.get(webhookId) ?? []);
  }

  /** The project's registrations not deleted, as of the last catch-up. */
  activeOf(projectId: string): Webhook[] {
    return this.ofProject(projectId).filter((webhook) => webhook.deletedPosition === null);
  }

  private index(event: FoldableEvent): void {
    if (event.type !== 'Webhook.Registered') return;
    const { webhookId, projectId } = event.data as WebhookRegistered['data'];
    const ids = this.byProject.get(projectId) ?? new Set<string>();
    ids.add(webhookId);
    this.byProject.set(projectId, ids);
  }
}
