import { DateTime } from 'luxon';
import { nextAttemptAt } from '#application/webhooks/webhook-backoff.js';
import type { PendingDelivery, PendingWebhook, WebhookDeliveries } from '#application/webhooks/webhook-deliveries.store.js';
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

/** A project's webhooks that may have deliveries pending, and its share of the sending slots. */
interface ProjectQueue {
  readonly webhooks: Set<string>;
  inFlight: number;
  /** When it last got a slot (a counter): the one served longest ago goes first. */
  servedAt: number;
}

/**
 * Sends queued deliveries: each webhook's one at a time, oldest first (so a lease's events arrive in
 * log order), several webhooks at once. The slots (LEASEHOLD_WEBHOOK_CONCURRENCY) are shared fairly
 * across projects: a project holds at most LEASEHOLD_WEBHOOK_PROJECT_CONCURRENCY of them, and each free
 * slot goes to the project with a delivery due that was served longest ago (round-robin), within it to
 * its webhook served longest ago. So a receiver that is slow or down holds back its own webhook and at
 * most its project's share; another project waits for a slot no longer than one attempt (the timeout).
 * A failed attempt waits out the backoff; one still failing at the give-up time is given up.
 * Every attempt and outcome is committed before the next one: after a crash, what was not acknowledged
 * by its receiver is sent again.
 */
export class WebhookWorker {
  private readonly inFlight = new Set<string>();
  /** By project, the webhooks that may have deliveries pending: a pass looks at these only. */
  private readonly projects = new Map<string, ProjectQueue>();
  private readonly projectOf = new Map<string, string>();
  /** When a webhook's head delivery is due, as last read: no index seek for it until then. */
  private readonly dueAt = new Map<string, number>();
  private readonly webhookServedAt = new Map<string, number>();
  private served = 0;
  private readonly failing = new Map<string, Failing>();
  private timer: NodeJS.Timeout | null = null;
  private nextPassAt: number | null = null;
  private running = false;
  private readonly clock: () => number;
  private readonly random: () => number;

  constructor(private readonly options: WebhookWorkerOptions) {
    this.clock = options.clock ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  start(): void {
    this.running = true;
    this.wake(this.options.deliveries.pendingWebhooks());
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
  wake(webhooks: Iterable<PendingWebhook> = []): void {
    for (const { webhookId, projectId } of webhooks) {
      this.dueAt.delete(webhookId);
      if (this.projectOf.has(webhookId)) continue;
      this.projectOf.set(webhookId, projectId);
      const project = this.projects.get(projectId) ?? { webhooks: new Set<string>(), inFlight: 0, servedAt: 0 };
      project.webhooks.add(webhookId);
      this.projects.set(projectId, project);
    }
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

  /**
   * Gives the free slots out one at a time, to the projects under their share in the order they were last
   * served; a project served goes to the back. Heads are read only as slots are given: with every slot
   * taken, a pass costs no more (an attempt that ends asks for the next pass).
   */
  private pass(): void {
    this.timer = null;
    this.nextPassAt = null;
    if (!this.running) return;
    const now = this.clock();
    let nextDue = now + IDLE_MS;
    const later = (due: number): void => void (nextDue = Math.min(nextDue, due));
    const { concurrency, projectConcurrency } = this.options.config;
    const turns = [...this.projects]
      .filter(([, project]) => project.inFlight < projectConcurrency)
      .sort(([, a], [, b]) => a.servedAt - b.servedAt)
      .map(([, project]) => ({ project, waiting: null as string[] | null }));
    for (let turn = turns.shift(); turn !== undefined && this.inFlight.size < concurrency; turn = turns.shift()) {
      turn.waiting ??= this.waitingOf(turn.project);
      const head = this.nextDueHead(turn.waiting, now, later);
      if (head === null) continue;
      this.launch(head, turn.project);
      if (turn.project.inFlight < projectConcurrency) turns.push(turn);
    }
    this.scheduleAt(nextDue);
  }

  /** The project's webhooks with no attempt in flight, the one served longest ago first. */
  private waitingOf(project: ProjectQueue): string[] {
    const servedAt = (webhookId: string): number => this.webhookServedAt.get(webhookId) ?? 0;
    return [...project.webhooks].filter((webhookId) => !this.inFlight.has(webhookId)).sort((a, b) => servedAt(a) - servedAt(b));
  }

  /** The first of these webhooks' head deliveries that is due (taken off the list with those looked at); null: none. */
  private nextDueHead(waiting: string[], now: number, later: (due: number) => void): PendingDelivery | null {
    for (let webhookId = waiting.shift(); webhookId !== undefined; webhookId = waiting.shift()) {
      const known = this.dueAt.get(webhookId);
      if (known !== undefined && known > now) {
        later(known);
        continue;
      }
      const head = this.options.deliveries.head(webhookId);
      if (head === null) this.forget(webhookId);
      else if (head.nextAtMs > now) {
        this.dueAt.set(webhookId, head.nextAtMs);
        later(head.nextAtMs);
      } else return head;
    }
    return null;
  }

  /** A webhook whose queue is empty: looked at again when the channel queues for it. */
  private forget(webhookId: string): void {
    const projectId = this.projectOf.get(webhookId);
    this.projectOf.delete(webhookId);
    this.dueAt.delete(webhookId);
    this.webhookServedAt.delete(webhookId);
    const project = projectId === undefined ? undefined : this.projects.get(projectId);
    project?.webhooks.delete(webhookId);
    if (projectId !== undefined && project?.webhooks.size === 0 && project.inFlight === 0) this.projects.delete(projectId);
  }

  /** A pass no later than `at` (one already planned sooner stays). */
  private scheduleAt(at: number): void {
    if (!this.running || (this.nextPassAt !== null && this.nextPassAt <= at)) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.nextPassAt = at;
    this.timer = setTimeout(() => this.pass(), Math.max(0, at - this.clock()));
  }

  private launch(delivery: PendingDelivery, project: ProjectQueue): void {
    this.served += 1;
    project.servedAt = this.served;
    project.inFlight += 1;
    this.webhookServedAt.set(delivery.webhookId, this.served);
    this.inFlight.add(delivery.webhookId);
    void this.attempt(delivery).finally(() => {
      this.inFlight.delete(delivery.webhookId);
      project.inFlight -= 1;
      this.dueAt.delete(delivery.webhookId);
      // the slot goes to whoever is next in line, this webhook's next delivery included
      if (this.running) this.scheduleAt(this.clock());
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
