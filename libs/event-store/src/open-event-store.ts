import { join } from 'node:path';
import type { EventStore } from './event-store.port.js';
import { KURRENTDB_URL } from './kurrentdb/kurrentdb-url.js';
import { PostgresEventStore } from './postgresql/postgresql-event-store.js';
import { SqliteEventStore } from './sqlite/sqlite-event-store.js';

/** The two logs a deployment keeps: the ledger itself, and the audit of refused writes beside it. */
export type EventLog = 'events' | 'audit';

const POSTGRES = /^postgres(ql)?:\/\//;

/** The URL's own `schema` (default `leasehold`), with `_audit` for the audit log. */
const postgresUrlFor = (url: string, log: EventLog): string => {
  if (log === 'events') return url;
  const parsed = new URL(url);
  parsed.searchParams.set('schema', `${parsed.searchParams.get('schema') ?? 'leasehold'}_audit`);
  return parsed.toString();
};

/** Says what in LEASEHOLD_EVENT_STORE_URL cannot be used, without echoing a password. */
export class EventStoreUrlError extends Error {
  override readonly name = 'EventStoreUrlError';
}

/**
 * The event store a process opens: LEASEHOLD_EVENT_STORE_URL (postgres://... or kurrentdb://...) when
 * set, else the embedded SQLite files in the data folder (events.sqlite, audit.sqlite).
 */
export const openEventStore = async (log: EventLog, dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<EventStore> => {
  const url = env.LEASEHOLD_EVENT_STORE_URL ?? '';
  if (url === '') return SqliteEventStore.open({ file: join(dataDir, `${log}.sqlite`) });
  if (POSTGRES.test(url)) return PostgresEventStore.open({ url: postgresUrlFor(url, log) });
  if (KURRENTDB_URL.test(url)) {
    // loaded only here: the client brings gRPC and a native bridge that the other stores never need
    const { KurrentDbEventStore } = await import('./kurrentdb/kurrentdb-event-store.js');
    return KurrentDbEventStore.open({ url, log });
  }
  throw new EventStoreUrlError(
    `LEASEHOLD_EVENT_STORE_URL must start with postgres://, postgresql://, kurrentdb:// or esdb:// (or be unset for the embedded store), got '${url.split(':')[0] ?? ''}:...'`,
  );
};
