/**
 * Reactor process: runs each lease's start, before-end and end when due, and acts out changes of
 * active reservations (more instances or addresses), and records the outcomes.
 *
 *   LEASEHOLD_DATA_DIR  data folder (default ./data); the log is `${dataDir}/events.sqlite`, or LEASEHOLD_EVENT_STORE_URL (postgres://...)
 *   LEASEHOLD_CLOUD     where effects happen (LEASEHOLD_EFFECTS is the older name): `standalone`
 *                       (default, a simulated cloud in `${dataDir}/standalone-cloud.sqlite`) or
 *                       `openstack` (Nova, Placement, Neutron with LEASEHOLD_OPENSTACK_*, see
 *                       libs/plugins/src/cloud-config.ts); anything else exits with code 1
 *   LEASEHOLD_RECONCILE_SECONDS  how often active reservations are compared with the cloud and
 *                       drift is repaired and recorded (default 300; 0: never); the same round looks
 *                       for what leases ended within LEASEHOLD_RECLAMATION_WINDOW_HOURS (default 24;
 *                       0: never) left in the cloud (Lease.LeftoversFound / LeftoversCleared)
 *   LEASEHOLD_HEALING_CHECK_SECONDS  healing of reservations on hosts that went down: a pass when a
 *                       host goes down and every so often (default 10; 0: no healing in this process),
 *                       over LEASEHOLD_HEALING_INTERVAL_MINUTES (default 60; 0: every future
 *                       reservation), with the API's cleaning time and allocation ratios
 *   LEASEHOLD_ENFORCEMENT_FILTERS  usage enforcement filters told of each lease's end (upstream's
 *                       on_end; docs/operations.md "Usage enforcement"), with the API's settings
 *   LEASEHOLD_REACTOR_HEALTH_PORT  /healthz and /readyz on LEASEHOLD_HOST (default 1236; 0: any free
 *                       port, logged; off: none)
 *   LEASEHOLD_METRICS, LEASEHOLD_METRICS_TOKEN  /metrics on the same port (libs/observability/src/metrics.ts):
 *                       timer lateness, retries, effect failures, drift repairs, exhausted freepools
 *   LEASEHOLD_TLS_CERT_FILE, LEASEHOLD_TLS_KEY_FILE  the API's certificate and key: the health port in HTTPS
 *   LEASEHOLD_SNAPSHOT_SECONDS, LEASEHOLD_SNAPSHOT_EVENTS  the timeline's snapshot beside the log (live
 *                       leases only): looked at every 60 s, written once 10000 positions went by, and
 *                       at a clean stop; a start reads it and the events after it (0 s: none written)
 *   LEASEHOLD_FREEPOOL_WATCH_SECONDS  how often the freepool watch looks at each zone's free hosts over
 *                       LEASEHOLD_FREEPOOL_WATCH_HOURS (default 60 and 24; 0: no watch) and records
 *                       Freepool.Exhausted below LEASEHOLD_FREEPOOL_MIN_FREE_HOSTS (default 1), then
 *                       Freepool.Recovered
 *
 * One JSON line per action, retry, start, stop and error on stdout. SIGTERM/SIGINT stop it
 * gracefully: actions in flight record their outcome first.
 */
import 'reflect-metadata';
import { type HealthServer, healthPortFromEnv, startHealthServer } from '#observability/health-server.js';
import { type MetricsAccess, metricsConfigFromEnv, processRegistry } from '#observability/metrics.js';
import type { Registry } from 'prom-client';
import { type ReactorMetrics, registerReactorMetrics } from './reactor.metrics.js';
import { CommandHandler } from '#application/command-handler.js';
import { eventLog } from '#observability/logger.js';
import { type TlsCredentials, healthTlsOrExit } from '#observability/tls.js';
import { openEventStore } from '#event-store/open-event-store.js';
import { takeLeadership } from '#event-store/leadership.js';
import type { EventStore } from '#event-store/event-store.port.js';
import type { CloudConfig } from '#plugins/cloud-config.js';
import { type OpenedEffects, openEffects, parseEffectsConfig } from './effects-config.js';
import { Reactor } from './reactor.js';
import { novaComputeServices, startNovaMonitoring } from './host-monitor/nova-monitoring.js';
import { hostEnrollmentFor } from '#plugins/openstack/enrollment/host-enrollment.config.js';
import { type HealingConfig, healingConfigFromEnv } from './healing/healing.config.js';
import { startHealing } from './healing/healing.js';
import { type FreepoolWatchConfig, freepoolWatchConfigFromEnv } from './freepool-watch/freepool-watch.config.js';
import { FreepoolWatchRunner } from './freepool-watch/freepool-watch.runner.js';
import { describeError } from '#domain/index.js';
import { type EnforcementConfig, enforcementConfigFromEnv } from '#application/enforcement/enforcement.config.js';
import { startEnforcementOnEnd } from './enforcement-on-end.js';
import { openSnapshotStore } from '#event-store/snapshots/open-snapshot-store.js';
import type { SnapshotStore } from '#event-store/snapshots/snapshot-store.port.js';
import { type SnapshotConfig, snapshotConfigFromEnv } from '#application/snapshots/snapshot.config.js';
import { type OpenedWriteIndex, type WriteIndexSnapshots, restoreWriteIndex } from '#application/write-model/write-index.snapshots.js';
import { type ReactorCommands, openReactorCommands } from './commands/reactor-command-bus.js';

const logLine = eventLog('reactor');

interface ProcessMetrics {
  readonly registry: Registry;
  readonly access: MetricsAccess;
  readonly reactor: ReactorMetrics;
}

/** The reactor's metrics unless LEASEHOLD_METRICS=off or there is no port to serve them; a wrong setting exits 1. */
const reactorMetrics = (): ProcessMetrics | null => {
  try {
    const { access } = metricsConfigFromEnv(process.env, process.env.LEASEHOLD_HOST ?? '127.0.0.1');
    if (access.kind === 'off' || healthPortFromEnv(process.env.LEASEHOLD_REACTOR_HEALTH_PORT, 1236) === null) return null;
    const registry = processRegistry();
    return { registry, access, reactor: registerReactorMetrics(registry) };
  } catch (error) {
    logLine({ event: 'error', phase: 'config', error: describeError(error) });
    process.exit(1);
  }
};

const metrics = reactorMetrics();
// the timers' lateness and retries are read off the reactor's own log entries
const log: typeof logLine =
  metrics === null
    ? logLine
    : (entry) => {
        metrics.reactor.observe(entry);
        logLine(entry);
      };

const fail = async (phase: string, error: unknown, store: EventStore | null, effects: OpenedEffects | null): Promise<never> => {
  log({ event: 'error', phase, error: describeError(error, { stack: true }) });
  effects?.close();
  await store?.close();
  process.exit(1);
};

const effectsConfig = (): CloudConfig => {
  try {
    return parseEffectsConfig(process.env);
  } catch (error) {
    log({ event: 'error', phase: 'config', error: describeError(error) });
    process.exit(1);
  }
};

const stopOnSignals = (
  reactor: Reactor,
  commands: ReactorCommands,
  effects: OpenedEffects,
  store: EventStore,
  snapshots: SnapshotStore,
): void => {
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    try {
      await reactor.stop();
      await commands.close();
      effects.close();
      await snapshots.close();
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

const reclamationWindowHours = (): number => {
  const text = process.env.LEASEHOLD_RECLAMATION_WINDOW_HOURS ?? '24';
  const hours = Number(text);
  if (!Number.isFinite(hours) || hours < 0) {
    log({ event: 'error', phase: 'config', error: `LEASEHOLD_RECLAMATION_WINDOW_HOURS must be a non-negative number, got '${text}'` });
    process.exit(1);
  }
  return hours;
};

const reconcileIntervalMs = (): number => {
  const text = process.env.LEASEHOLD_RECONCILE_SECONDS ?? '300';
  const seconds = Number(text);
  if (!Number.isInteger(seconds) || seconds < 0) {
    log({ event: 'error', phase: 'config', error: `LEASEHOLD_RECONCILE_SECONDS must be a non-negative integer, got '${text}'` });
    process.exit(1);
  }
  return seconds * 1000;
};

const freepoolConfig = (): FreepoolWatchConfig => {
  try {
    return freepoolWatchConfigFromEnv(process.env);
  } catch (error) {
    log({ event: 'error', phase: 'config', error: describeError(error) });
    process.exit(1);
  }
};

const snapshotConfig = (): SnapshotConfig => {
  try {
    return snapshotConfigFromEnv(process.env);
  } catch (error) {
    log({ event: 'error', phase: 'config', error: describeError(error) });
    process.exit(1);
  }
};

/** A write index from its snapshot of `kind`, its start logged (restored from a position, or why it folds the log). */
const restoredIndex = async (store: EventStore, snapshots: WriteIndexSnapshots & { readonly kind: string }): Promise<OpenedWriteIndex> => {
  const opened = await restoreWriteIndex(store, snapshots);
  const { restored } = opened;
  log({
    event: 'snapshot',
    kind: snapshots.kind,
    ...('position' in restored ? { snapshot: restored.position } : { snapshot: null, rebuilt: restored.reason }),
  });
  return opened;
};

const healingConfig = (): HealingConfig => {
  try {
    return healingConfigFromEnv(process.env);
  } catch (error) {
    log({ event: 'error', phase: 'config', error: describeError(error) });
    process.exit(1);
  }
};

const enforcementConfig = (): EnforcementConfig => {
  try {
    return enforcementConfigFromEnv(process.env);
  } catch (error) {
    log({ event: 'error', phase: 'config', error: describeError(error) });
    process.exit(1);
  }
};

const serveHealth = async (reactor: Reactor, tls: TlsCredentials | undefined): Promise<HealthServer | null> => {
  const port = healthPortFromEnv(process.env.LEASEHOLD_REACTOR_HEALTH_PORT, 1236);
  if (port === null) return null;
  const host = process.env.LEASEHOLD_HOST ?? '127.0.0.1';
  const served = metrics === null ? {} : { metrics: { registry: metrics.registry, access: metrics.access } };
  const server = await startHealthServer({ host, port, service: 'reactor', readiness: () => reactor.readiness(), ...served, tls });
  log({ event: 'health', url: server.url() });
  return server;
};

/**
 * Several reactors on one shared log (PostgreSQL: an advisory lock; KurrentDB: a lease stream): one acts, the others wait to take over
 * (docs/operations.md).
 * A leader that loses its lock exits at once, before another can act beside it; its supervisor restarts it as a standby.
 */
const leadReactors = async (): Promise<void> => {
  const leadership = await takeLeadership({
    role: 'reactor',
    eventStoreUrl: process.env.LEASEHOLD_EVENT_STORE_URL ?? '',
    onStandby: () => log({ event: 'standby', reason: 'another reactor leads' }),
  });
  leadership.onLost((reason) => {
    log({ event: 'error', phase: 'leadership', error: reason });
    process.exit(1);
  });
  if ((process.env.LEASEHOLD_EVENT_STORE_URL ?? '') !== '') log({ event: 'leader' });
};

const main = async (): Promise<void> => {
  const dataDir = process.env.LEASEHOLD_DATA_DIR ?? './data';
  const config = effectsConfig();
  const reconcileEveryMs = reconcileIntervalMs();
  const healing = healingConfig();
  const freepool = freepoolConfig();
  const enforcement = enforcementConfig();
  const snapshotting = snapshotConfig();
  const tls = healthTlsOrExit(process.env, (error) => log({ event: 'error', phase: 'config', error: describeError(error) }));
  let store: EventStore | null = null;
  let effects: OpenedEffects | null = null;
  try {
    await leadReactors();
    store = await openEventStore('events', dataDir);
    effects = openEffects(config, dataDir, (call) => log({ event: 'openstack.call', ...call }));
    const hostEnrollment = hostEnrollmentFor(config);
    // followed before the reactor starts, so that what it records while catching up is counted
    const outcomes = await metrics?.reactor.followOutcomes(store);
    const leftoversObserved =
      metrics === null ? undefined : (counts: Parameters<ReactorMetrics['leftovers']>[0]) => metrics.reactor.leftovers(counts);
    const reclamationWindowMs = reclamationWindowHours() * 3_600_000;
    const snapshots = await openSnapshotStore(dataDir);
    // healing and the freepool watch forget past bookings each their own way: a snapshot kind each
    const ledger = store;
    const calendars = async (kind: string, wanted: boolean): Promise<OpenedWriteIndex | null> =>
      wanted
        ? await restoredIndex(ledger, {
            store: snapshots,
            config: snapshotting,
            kind,
            catchUpBeforeSnapshot: true,
            onError: (error) => log({ event: 'error', phase: 'snapshot', kind, error: describeError(error) }),
          })
        : null;
    // before the bus: its healing handler decides on these calendars
    const healingIndex = await calendars('reactor-healing-index', healing.checkMs > 0);
    // every command the process sends goes through this one bus, and every outcome through one command handler
    const commands = await openReactorCommands({
      handler: new CommandHandler(store),
      healing: healingIndex === null ? null : { index: healingIndex.index, config: healing },
    });
    const reactor = await Reactor.start({
      store,
      commands: commands.bus,
      effects: effects.registry,
      log,
      hostEnrollment,
      reconcileIntervalMs: reconcileEveryMs,
      reclamationWindowMs,
      leftoversObserved,
      snapshots: { store: snapshots, config: snapshotting },
    });
    if (outcomes !== undefined) reactor.stopsWith(outcomes);
    if (config.kind === 'openstack') {
      // host health from Nova: LEASEHOLD_NOVA_NOTIFICATIONS_URL (consumer) and LEASEHOLD_HOST_POLLING_SECONDS (poller)
      const openstack = config.openstack;
      reactor.stopsWith(
        startNovaMonitoring({
          store,
          commands: commands.bus,
          settings: openstack,
          listComputeServices: novaComputeServices(openstack),
          log,
        }),
      );
    }
    const healer = await startHealing({ store, commands: commands.bus, config: healing, log });
    if (healer !== null) reactor.stopsWith(healer);
    if (healingIndex !== null) reactor.stopsWith(healingIndex.writer);
    const observed = metrics === null ? undefined : (zone: { zone: string }, short: boolean) => metrics.reactor.freepool(zone.zone, short);
    const freepoolIndex = await calendars('reactor-freepool-index', freepool.checkMs > 0);
    const watch = FreepoolWatchRunner.start({
      store,
      commands: commands.bus,
      config: freepool,
      clock: () => new Date(),
      log,
      observed,
      ...(freepoolIndex === null ? {} : { index: freepoolIndex.index }),
    });
    if (watch !== null) reactor.stopsWith(watch);
    if (freepoolIndex !== null) reactor.stopsWith(freepoolIndex.writer);
    const onEnd = await startEnforcementOnEnd(enforcement, store, log);
    if (onEnd !== null) reactor.stopsWith(onEnd);
    const health = await serveHealth(reactor, tls);
    if (health !== null) reactor.stopsWith({ stop: () => health.close() });
    stopOnSignals(reactor, commands, effects, store, snapshots);
  } catch (error) {
    await fail('start', error, store, effects);
  }
};

void main();
