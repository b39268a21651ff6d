import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { DateTime } from 'luxon';

export type DeliveryState = 'pending' | 'delivered' | 'gave_up' | 'dropped';

/** One send of a delivery: its HTTP status, or the error that kept it from getting one. */
export interface DeliveryAttempt {
  readonly attempt: number;
  readonly at: string;
  readonly status_code: number | null;
  readonly error: string | null;
  readonly duration_ms: number;
}

/** One event to send to one webhook, as GET /v1/webhooks/{id}/deliveries shows it. */
export interface DeliveryView {
  readonly id: number;
  readonly event_id: string;
  readonly event_type: string;
  readonly lease_id: string;
  readonly position: number;
  readonly state: DeliveryState;
  readonly queued_at: string;
  readonly attempts: readonly DeliveryAttempt[];
}

export interface PendingDelivery {
  readonly seq: number;
  readonly webhookId: string;
  readonly url: string;
  readonly eventId: string;
  readonly body: string;
  readonly attempts: number;
  readonly queuedAtMs: number;
  readonly nextAtMs: number;
}

/** A webhook whose queue is not empty, and the project that registered it (the worker shares the sending slots by project). */
export interface PendingWebhook {
  readonly webhookId: string;
  readonly projectId: string;
}

export interface NewDelivery {
  readonly webhookId: string;
  readonly url: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly leaseId: string;
  readonly position: number;
  readonly body: string;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS webhook_leases (lease_id TEXT PRIMARY KEY, project_id TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS webhook_deliveries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, webhook_id TEXT NOT NULL, url TEXT NOT NULL, event_id TEXT NOT NULL, event_type TEXT NOT NULL,
    lease_id TEXT NOT NULL, position INTEGER NOT NULL, body TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
    queued_at_ms INTEGER NOT NULL, next_at_ms INTEGER NOT NULL, UNIQUE (webhook_id, event_id));
  CREATE INDEX IF NOT EXISTS webhook_deliveries_pending ON webhook_deliveries (state, webhook_id, seq);
  CREATE INDEX IF NOT EXISTS webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, seq);
  CREATE TABLE IF NOT EXISTS webhook_attempts (
    seq INTEGER NOT NULL, attempt INTEGER NOT NULL, webhook_id TEXT NOT NULL, at TEXT NOT NULL, status_code INTEGER, error TEXT,
    duration_ms INTEGER NOT NULL, PRIMARY KEY (seq, attempt));
`;

const iso = (ms: number): string => DateTime.fromMillis(ms, { zone: 'utc' }).toISO() as string;

/**
 * The publisher's webhook queue (`${dataDir}/webhooks.sqlite`): the webhook channel enqueues one
 * delivery per (webhook, event) in the transaction that precedes its acknowledgement (synchronous=FULL:
 * it survives a power loss, as the checkpoint after it does), the worker records every attempt and the
 * outcome (synchronous=NORMAL: a SIGKILL loses none; a power loss may lose the latest, and then a
 * delivery is sent again, which at-least-once allows). One not yet acknowledged by its receiver is
 * sent again after a restart.
 * The API opens it read-only for GET /v1/webhooks/{id}/deliveries.
 */
export class WebhookDeliveries {
  private readonly headQuery: Database.Statement<[string]>;

  private constructor(private readonly db: Database.Database) {
    this.headQuery = db.prepare(
      "SELECT seq, webhook_id, url, event_id, body, attempts, queued_at_ms, next_at_ms FROM webhook_deliveries WHERE state = 'pending' AND webhook_id = ? ORDER BY seq LIMIT 1",
    );
  }

  static open(file: string): WebhookDeliveries {
    mkdirSync(dirname(file), { recursive: true });
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.exec(SCHEMA);
    return new WebhookDeliveries(db);
  }

  /** null while the publisher never ran with webhooks on (no file yet). */
  static openReader(file: string): WebhookDeliveries | null {
    if (!existsSync(file)) return null;
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    return new WebhookDeliveries(db);
  }

  /** Leases' projects as their `lease.created` passed: later lease events name only the lease. */
  rememberLeases(leases: readonly { readonly leaseId: string; readonly projectId: string }[]): void {
    const insert = this.db.prepare('INSERT OR IGNORE INTO webhook_leases (lease_id, project_id) VALUES (?, ?)');
    for (const { leaseId, projectId } of leases) insert.run(leaseId, projectId);
  }

  projectOf(leaseId: string): string | null {
    return (
      (this.db.prepare('SELECT project_id FROM webhook_leases WHERE lease_id = ?').get(leaseId) as { project_id: string } | undefined)
        ?.project_id ?? null
    );
  }

  /** One transaction: a batch's deliveries are all queued or none; a batch sent again queues nothing twice. */
  enqueue(
    leases: readonly { readonly leaseId: string; readonly projectId: string }[],
    deliveries: readonly NewDelivery[],
    nowMs: number,
  ): void {
    const insert = this.db.prepare(
      `INSERT OR IGNORE INTO webhook_deliveries (webhook_id, url, event_id, event_type, lease_id, position, body, state, queued_at_ms, next_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
    );
    // synchronous=FULL for this commit only: the checkpoint advances next, so the queue must survive a
    // power loss too (the WAL's fsync covers the attempt records committed before it as well)
    this.db.pragma('synchronous = FULL');
    try {
      this.db.transaction(() => {
        this.rememberLeases(leases);
        for (const d of deliveries) insert.run(d.webhookId, d.url, d.eventId, d.eventType, d.leaseId, d.position, d.body, nowMs, nowMs);
      })();
    } finally {
      this.db.pragma('synchronous = NORMAL');
    }
  }

  /**
   * The webhooks with deliveries pending, each with its project (read once at start; the channel names the
   * ones it queues for later). A webhook gets its project's lease events only, so its deliveries' leases are its project's.
   */
  pendingWebhooks(): PendingWebhook[] {
    return (
      this.db
        .prepare(
          `SELECT d.webhook_id, MIN(l.project_id) AS project_id FROM webhook_deliveries d JOIN webhook_leases l ON l.lease_id = d.lease_id
           WHERE d.state = 'pending' GROUP BY d.webhook_id`,
        )
        .all() as { webhook_id: string; project_id: string }[]
    ).map((r) => ({ webhookId: r.webhook_id, projectId: r.project_id }));
  }

  /** A webhook's oldest pending delivery (an index seek): a webhook's deliveries go one at a time, in order. */
  head(webhookId: string): PendingDelivery | null {
    const r = this.headQuery.get(webhookId) as
      | {
          seq: number;
          webhook_id: string;
          url: string;
          event_id: string;
          body: string;
          attempts: number;
          queued_at_ms: number;
          next_at_ms: number;
        }
      | undefined;
    return r === undefined
      ? null
      : {
          seq: r.seq,
          webhookId: r.webhook_id,
          url: r.url,
          eventId: r.event_id,
          body: r.body,
          attempts: r.attempts,
          queuedAtMs: r.queued_at_ms,
          nextAtMs: r.next_at_ms,
        };
  }

  /** Records an attempt and the delivery's new state (and next attempt time while pending) together. */
  recordAttempt(delivery: PendingDelivery, attempt: Omit<DeliveryAttempt, 'attempt'>, state: DeliveryState, nextAtMs: number): void {
    const number = delivery.attempts + 1;
    this.db.transaction(() => {
      this.db
        .prepare(
          'INSERT OR REPLACE INTO webhook_attempts (seq, attempt, webhook_id, at, status_code, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?)',
        )
        .run(delivery.seq, number, delivery.webhookId, attempt.at, attempt.status_code, attempt.error, attempt.duration_ms);
      this.db
        .prepare('UPDATE webhook_deliveries SET attempts = ?, state = ?, next_at_ms = ? WHERE seq = ?')
        .run(number, state, nextAtMs, delivery.seq);
    })();
  }

  /** A deleted webhook's pending deliveries: its secret is gone, nothing more is sent. */
  drop(webhookId: string): void {
    this.db.prepare("UPDATE webhook_deliveries SET state = 'dropped' WHERE webhook_id = ? AND state = 'pending'").run(webhookId);
  }

  counts(): { readonly pending: number; readonly retrying: number; readonly gaveUp: number; readonly oldestPendingMs: number | null } {
    const row = this.db
      .prepare(
        `SELECT SUM(state = 'pending') AS pending, SUM(state = 'pending' AND attempts > 0) AS retrying, SUM(state = 'gave_up') AS gave_up,
         MIN(CASE WHEN state = 'pending' THEN queued_at_ms END) AS oldest FROM webhook_deliveries`,
      )
      .get() as { pending: number | null; retrying: number | null; gave_up: number | null; oldest: number | null };
    return { pending: row.pending ?? 0, retrying: row.retrying ?? 0, gaveUp: row.gave_up ?? 0, oldestPendingMs: row.oldest };
  }

  /** A webhook's deliveries, newest first, each with every attempt. */
  list(webhookId: string, limit: number): DeliveryView[] {
    const deliveries = this.db
      .prepare(
        'SELECT seq, event_id, event_type, lease_id, position, state, queued_at_ms FROM webhook_deliveries WHERE webhook_id = ? ORDER BY seq DESC LIMIT ?',
      )
      .all(webhookId, limit) as {
      seq: number;
      event_id: string;
      event_type: string;
      lease_id: string;
      position: number;
      state: DeliveryState;
      queued_at_ms: number;
    }[];
    const attempts = this.db.prepare(
      'SELECT attempt, at, status_code, error, duration_ms FROM webhook_attempts WHERE seq = ? ORDER BY attempt',
    );
    return deliveries.map((d) => ({
      id: d.seq,
      event_id: d.event_id,
      event_type: d.event_type,
      lease_id: d.lease_id,
      position: d.position,
      state: d.state,
      queued_at: iso(d.queued_at_ms),
      attempts: attempts.all(d.seq) as DeliveryAttempt[],
    }));
  }

  close(): void {
    this.db.close();
  }
}
