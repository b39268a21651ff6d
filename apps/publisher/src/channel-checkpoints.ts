import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/**
 * Each channel's position in the log: every event at or below it was acknowledged by the channel.
 * A SQLite file of the publisher's own (not the read model, which may be PostgreSQL and is rebuilt
 * at will; not the log, which the publisher only reads): one row per channel, each save committed with
 * synchronous=FULL before the next batch is read, so a SIGKILL never loses an advance made.
 */
export class ChannelCheckpoints {
  private readonly read: Database.Statement<[string], { position: number }>;
  private readonly write: Database.Statement<[string, number, string]>;

  private constructor(private readonly db: Database.Database) {
    this.read = db.prepare('SELECT position FROM channel_checkpoints WHERE channel = ?');
    this.write = db.prepare(
      'INSERT INTO channel_checkpoints (channel, position, updated_at) VALUES (?, ?, ?) ON CONFLICT (channel) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at',
    );
  }

  static open(file: string): ChannelCheckpoints {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    db.exec(
      'CREATE TABLE IF NOT EXISTS channel_checkpoints (channel TEXT PRIMARY KEY, position INTEGER NOT NULL, updated_at TEXT NOT NULL)',
    );
    return new ChannelCheckpoints(db);
  }

  /** 0 for a channel that never published: it starts from the beginning of the log. */
  position(channel: string): number {
    return this.read.get(channel)?.position ?? 0;
  }

  save(channel: string, position: number, at: string): void {
    this.write.run(channel, position, at);
  }

  close(): void {
    this.db.close();
  }
}
