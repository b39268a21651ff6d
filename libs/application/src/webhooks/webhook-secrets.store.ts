import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/**
 * Webhook signing secrets, beside the log and never in it: the log is immutable and read by history,
 * Kafka and exports. The API writes a secret before the registration's event and removes it with the
 * deletion (the secret is then gone for good); the publisher reads it to sign. File mode 0600.
 */
export class WebhookSecrets {
  private constructor(private readonly db: Database.Database) {}

  static open(file: string): WebhookSecrets {
    const onDisk = file !== ':memory:';
    if (onDisk) mkdirSync(dirname(file), { recursive: true });
    const fresh = onDisk && !existsSync(file);
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    db.exec('CREATE TABLE IF NOT EXISTS webhook_secrets (webhook_id TEXT PRIMARY KEY, secret TEXT NOT NULL, created_at TEXT NOT NULL)');
    if (fresh) chmodSync(file, 0o600);
    return new WebhookSecrets(db);
  }

  put(webhookId: string, secret: string, at: string): void {
    this.db.prepare('INSERT OR REPLACE INTO webhook_secrets (webhook_id, secret, created_at) VALUES (?, ?, ?)').run(webhookId, secret, at);
  }

  /** null once the webhook was deleted (or never registered). */
  get(webhookId: string): string | null {
    return (
      (this.db.prepare('SELECT secret FROM webhook_secrets WHERE webhook_id = ?').get(webhookId) as { secret: string } | undefined)
        ?.secret ?? null
    );
  }

  remove(webhookId: string): void {
    this.db.prepare('DELETE FROM webhook_secrets WHERE webhook_id = ?').run(webhookId);
  }

  close(): void {
    this.db.close();
  }
}
