import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { KURRENTDB_URL } from './kurrentdb/kurrentdb-url.js';
import { streamLeadership } from './stream-leadership.js';

/** Being the one process of a role (the reactor) that acts, while others of the same role wait. */
export interface Leadership {
  /** Called at most once, if the leadership is lost while held: the holder must stop acting at once. */
  onLost(listener: (reason: string) => void): void;
  release(): Promise<void>;
}

export interface LeadershipOptions {
  readonly role: string;
  /** LEASEHOLD_EVENT_STORE_URL: PostgreSQL or KurrentDB decides among processes; unset, the embedded store's single machine has one. */
  readonly eventStoreUrl: string;
  /** How often a standby asks again. */
  readonly retryMs?: number;
  readonly onStandby?: () => void;
  readonly signal?: AbortSignal;
}

const DEFAULT_RETRY_MS = 1_000;

/**
 * On PostgreSQL: a session-level advisory lock on a connection of its own. The server releases it the
 * moment that connection ends, so a leader killed with SIGKILL hands over within one retry interval;
 * a leader whose connection breaks hears it and must stop (another may already lead).
 */
const postgresLeadership = async (options: LeadershipOptions): Promise<Leadership> => {
  const url = new URL(options.eventStoreUrl);
  const key = `leasehold-leader:${url.searchParams.get('schema') ?? 'leasehold'}:${options.role}`;
  url.searchParams.delete('schema');
  let announced = false;
  for (;;) {
    options.signal?.throwIfAborted();
    const client = new pg.Client({ connectionString: url.toString() });
    let lostListener: ((reason: string) => void) | null = null;
    let released = false;
    const lost = (reason: string): void => {
      if (released) return;
      released = true;
      lostListener?.(reason);
    };
    client.on('error', (error) => lost(`the leadership connection failed: ${error.message}`));
    client.on('end', () => lost('the leadership connection ended'));
    try {
      await client.connect();
      for (;;) {
        const { rows } = await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS held', [key]);
        if (rows[0]?.held === true) {
          return {
            onLost: (listener) => {
              lostListener = listener;
            },
            release: async () => {
              released = true;
              await client.end().catch(() => undefined);
            },
          };
        }
        if (!announced) options.onStandby?.();
        announced = true;
        await sleep(options.retryMs ?? DEFAULT_RETRY_MS, undefined, options.signal ? { signal: options.signal } : {});
      }
    } catch (error) {
      released = true;
      await client.end().catch(() => undefined);
      if (options.signal?.aborted) throw error;
      // the database is away: ask again once it answers
      await sleep(options.retryMs ?? DEFAULT_RETRY_MS);
    }
  }
};

const alone: Leadership = { onLost: () => undefined, release: async () => undefined };

/**
 * On KurrentDB: a lease in a stream of the deployment's `leadership` log (./stream-leadership.ts),
 * through a store of its own that is closed with the leadership.
 */
const kurrentDbLeadership = async (options: LeadershipOptions): Promise<Leadership> => {
  const { KurrentDbEventStore } = await import('./kurrentdb/kurrentdb-event-store.js');
  const store = await KurrentDbEventStore.open({ url: options.eventStoreUrl, log: 'leadership' });
  try {
    const leadership = await streamLeadership({
      store,
      role: options.role,
      ...(options.retryMs === undefined ? {} : { retryMs: options.retryMs }),
      ...(options.onStandby === undefined ? {} : { onStandby: options.onStandby }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    return {
      onLost: (listener) => leadership.onLost(listener),
      release: async () => {
        await leadership.release();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
};

/** Resolves once this process leads its role; with the embedded store at once (one machine, one reactor). */
export const takeLeadership = (options: LeadershipOptions): Promise<Leadership> => {
  if (/^postgres(ql)?:\/\//.test(options.eventStoreUrl)) return postgresLeadership(options);
  if (KURRENTDB_URL.test(options.eventStoreUrl)) return kurrentDbLeadership(options);
  return Promise.resolve(alone);
};
