import { DateTime } from 'luxon';
import { nextAttemptAt } from '#application/webhooks/webhook-backoff.js';
import type { PendingDelivery, WebhookDeliveries } from '#application/webhooks/webhook-deliveries.store.js';
import type { WebhookSecrets } from '#application/webhooks/webhook-secrets.store.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, WEBHOOK_ID_HEADER, signatureHeader } from '#application/webhooks/webhook-signature.js';
import type { WebhookConfig } from '#application/webhooks/webhook.config.js';
import { CLOUDEVENTS_CONTENT_TYPE } from '../cloud-event.js';
import type { Send } from './webhook-sender.js';

export type WorkerLogEntry = Readonly<{
  event: 'webhook_failed' | 'webhook_gave_up';
  webhook_id: string;
  event_id: string;
  attempts: number;
  error: string;
}>;

export interface WebhookWorkerOptions {
  readonly deliveries: WebhookDeliveries;
  readonly secrets: WebhookSecrets;
  readonly config: WebhookConfig;
  readonly send: Send;
  readonly clock?: () => number;
  readonly random?: () => number;
  readonly log?: (entry: WorkerLogEntry) => void;
}

interface Failing {
  readonly webhook_id: string;
  readonly attempts: number;
  readonly error: string;
  readonly at: string;
}

/** The longest the worker sleeps without looking at the queue (a wake-up comes sooner on every enqueue). */
const IDLE_MS = 1_000;

/**
 * Sends queued deliveries: each webhook's one at a time, oldest first (so a lease's events arrive in
 * log order), several webhooks at once, so one receiver that is slow or down holds back only its own
 * deliveries. A failed attempt waits out the backoff; one still failing at the give-up time is given up.
 * Every attempt and outcome is committed before the next one: after a crash, what was not acknowledged
 * by its receiver is sent again.
 */
export class WebhookWorker {
  private readonly inFlight = new Set<string>();
  /** Webhooks that may have deliveries pending: a pass looks at these only, one index seek each. */
  private readonly active = new Set<string>();
  private readonly failing = new Map<string, Failing>();
  private timer: NodeJS.Timeout | null = null;
  private nextPassAt: number | null = null;
  private starved = false;
  private running = false;
  private readonly clock: () => number;
  private readonly random: () => number;

  constructor(private readonly options: WebhookWorkerOptions) {
    this.clock = options.clock ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  start(): void {
    this.running = true;
    for (const webhookId of this.options.deliveries.pendingWebhooks()) this.active.add(webhookId);
    this.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.nextPassAt = null;
    // attempts in flight finish and are recorded; a delivery cut off by a kill is simply sent again
    while (this.inFlight.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** Looks at the queue now: new deliveries were queued for these webhooks. */
  wake(webhookIds: Iterable<string> = []): void {
    for (const webhookId of webhookIds) this.active.add(webhookId);
    if (this.running) this.scheduleAt(this.clock());
  }

  status(): Readonly<Record<string, unknown>> {
    const counts = this.options.deliveries.counts();
    return {
      pending: counts.pending,
      retrying: counts.retrying,
      gave_up: counts.gaveUp,
      oldest_pending_seconds: counts.oldestPendingMs === null ? 0 : Math.max(0, (this.clock() - counts.oldestPendingMs) / 1000),
      failing_webhooks: [...this.failing.values()],
    };
  }

  private pass(): void {
    this.timer = null;
    this.nextPassAt = null;
    if (!this.running) return;
    const now = this.clock();
    let nextDue = now + IDLE_MS;
    for (const webhookId of this.active) {
      if (this.inFlight.has(webhookId)) continue;
      const due = this.launchHead(webhookId, now);
      if (due !== null) nextDue = Math.min(nextDue, due);
    }
    this.scheduleAt(nextDue);
  }

  /** Sends the webhook's head delivery if it is due and a slot is free; else when it is due (null: nothing pending). */
  private launchHead(webhookId: string, now: number): number | null {
    const head = this.options.deliveries.head(webhookId);
    if (head === null) {
      this.active.delete(webhookId);
      return null;
    }
    if (head.nextAtMs > now) return head.nextAtMs;
    if (this.inFlight.size >= this.options.config.concurrency) {
      this.starved = true;
      return now + IDLE_MS;
    }
    this.launch(head);
    return null;
  }

  /** A pass no later than `at` (one already planned sooner stays). */
  private scheduleAt(at: number): void {
    if (!this.running || (this.nextPassAt !== null && this.nextPassAt <= at)) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.nextPassAt = at;
    this.timer = setTimeout(() => this.pass(), Math.max(0, at - this.clock()));
  }

  private launch(delivery: PendingDelivery): void {
    this.inFlight.add(delivery.webhookId);
    void this.attempt(delivery).finally(() => {
      this.inFlight.delete(delivery.webhookId);
      if (!this.running) return;
      // the next of the same webhook straight away (in order); others wait for the pass they are due at
      const due = this.launchHead(delivery.webhookId, this.clock());
      if (due !== null) this.scheduleAt(due);
      // a webhook left waiting for a free slot gets this one now
      if (this.starved && this.inFlight.size < this.options.config.concurrency) {
        this.starved = false;
        this.scheduleAt(this.clock());
      }
    });
  }

  private async attempt(delivery: PendingDelivery): Promise<void> {
    const secret = this.options.secrets.get(delivery.webhookId);
    if (secret === null) {
      this.options.deliveries.drop(delivery.webhookId);
      this.failing.delete(delivery.webhookId);
      return;
    }
    const started = this.clock();
    const result = await this.options.send({
      url: delivery.url,
      headers: {
        'content-type': CLOUDEVENTS_CONTENT_TYPE,
        'user-agent': 'leasehold-webhooks/1',
        [SIGNATURE_HEADER]: signatureHeader(secret, Math.floor(started / 1000), delivery.body),
        [EVENT_ID_HEADER]: delivery.eventId,
        [WEBHOOK_ID_HEADER]: delivery.webhookId,
      },
      body: delivery.body,
      timeoutMs: this.options.config.timeoutMs,
    });
    const finished = this.clock();
    const at = DateTime.fromMillis(started, { zone: 'utc' }).toISO() as string;
    const attempt = { at, status_code: result.statusCode, error: result.error, duration_ms: Math.max(0, Math.round(finished - started)) };
    if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) {
      this.options.deliveries.recordAttempt(delivery, attempt, 'delivered', finished);
      this.failing.delete(delivery.webhookId);
      return;
    }
    this.recordFailure(delivery, attempt, finished);
  }

  private recordFailure(
    delivery: PendingDelivery,
    attempt: { readonly at: string; readonly status_code: number | null; readonly error: string | null; readonly duration_ms: number },
    now: number,
  ): void {
    const attempts = delivery.attempts + 1;
    const next = nextAttemptAt(this.options.config.schedule, delivery.queuedAtMs, now, attempts, this.random());
    const error = attempt.error ?? `HTTP ${attempt.status_code ?? '?'}`;
    this.options.deliveries.recordAttempt(delivery, attempt, next === null ? 'gave_up' : 'pending', next ?? now);
    this.failing.set(delivery.webhookId, { webhook_id: delivery.webhookId, attempts, error, at: attempt.at });
    this.options.log?.({
      event: next === null ? 'webhook_gave_up' : 'webhook_failed',
      webhook_id: delivery.webhookId,
      event_id: delivery.eventId,
      attempts,
      error,
    });
  }
}
