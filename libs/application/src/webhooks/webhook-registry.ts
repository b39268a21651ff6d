import type { EventStore, FoldableEvent } from '#event-store/event-store.port.js';
import { AsyncMutex } from '../write-model/async-mutex.js';
import { WEBHOOK_CATEGORY, type Webhook, foldWebhooks } from './webhook.events.js';

/** Registrations read per request while catching up with the `webhook` streams. */
const PAGE = 1_000;

/**
 * Every registration as the log states it (deleted ones too, with the position of their deletion), kept
 * in memory and caught up before each use: a use reads only the registrations and deletions made since
 * the last one, not the whole `webhook` category again.
 */
export class WebhookRegistry {
  private readonly webhooks = new Map<string, Webhook>();
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

  /** The project's registrations not deleted, as of the last catch-up. */
  activeOf(projectId: string): Webhook[] {
    return [...this.webhooks.values()].filter((webhook) => webhook.projectId === projectId && webhook.deletedPosition === null);
  }
}
