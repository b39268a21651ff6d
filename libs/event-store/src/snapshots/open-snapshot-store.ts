import { join } from 'node:path';
import { PostgresSnapshotStore } from './postgresql-snapshot-store.js';
import type { SnapshotStore } from './snapshot-store.port.js';
import { SqliteSnapshotStore } from './sqlite-snapshot-store.js';

/** Beside the ledger openEventStore('events', ...) opens: the same SQLite file, or the same PostgreSQL schema. */
export const openSnapshotStore = async (dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<SnapshotStore> => {
  const url = env.LEASEHOLD_EVENT_STORE_URL ?? '';
  if (url === '') return SqliteSnapshotStore.open(join(dataDir, 'events.sqlite'));
  return PostgresSnapshotStore.open(url);
};
