/**
 * Reactor process: runs each lease's start, before-end and end when due, and acts out changes of
 * active reservations (more instances or addresses), and records the outcomes.
 *
 *   LEASEHOLD_DATA_DIR  data folder (default ./data); the log is `${dataDir}/events.sqlite`
 *   LEASEHOLD_EFFECTS   where effects happen: `standalone` (default, a simulated cloud in
 *                       `${dataDir}/standalone-cloud.sqlite`); anything else exits with code 1
 *
 * One JSON line per action, retry, start, stop and error on stdout. SIGTERM/SIGINT stop it
 * gracefully: actions in flight record their outcome first.
 */
import { SqliteEventStore } from '../../../libs/event-store/src/sqlite/sqlite-event-store.js';
import type { EventStore } from '../../../libs/event-store/src/event-store.port.js';
import { type EffectsKind, type OpenedEffects, openEffects, parseEffectsKind } from './effects-config.js';
import { Reactor } from './reactor.js';
import type { ReactorLogEntry } from './scheduler.js';

const log = (entry: ReactorLogEntry): void => {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), service: 'reactor', ...entry })}\n`);
};

const describe = (error: unknown): string => (error instanceof Error ? (error.stack ?? error.message) : String(error));

const fail = async (phase: string, error: unknown, store: EventStore | null, effects: OpenedEffects | null): Promise<never> => {
  log({ event: 'error', phase, error: describe(error) });
  effects?.close();
  await store?.close();
  process.exit(1);
};

const effectsKind = (): EffectsKind => {
  try {
    return parseEffectsKind(process.env.LEASEHOLD_EFFECTS);
  } catch (error) {
    log({ event: 'error', phase: 'config', error: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  }
};

const stopOnSignals = (reactor: Reactor, effects: OpenedEffects, store: EventStore): void => {
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    try {
      await reactor.stop();
      effects.close();
      await store.close();
    } catch (error) {
      return fail('shutdown', error, null, null);
    }
    log({ event: 'exit', signal, code: 0 });
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
};

const main = async (): Promise<void> => {
  const dataDir = process.env.LEASEHOLD_DATA_DIR ?? './data';
  const kind = effectsKind();
  let store: EventStore | null = null;
  let effects: OpenedEffects | null = null;
  try {
    store = SqliteEventStore.open({ file: `${dataDir}/events.sqlite` });
    effects = openEffects(kind, dataDir);
    const reactor = await Reactor.start({ store, effects: effects.registry, log });
    stopOnSignals(reactor, effects, store);
  } catch (error) {
    await fail('start', error, store, effects);
  }
};

void main();
