import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { LEFTOVER_KINDS, type Leftover, type LeftoverKind } from '#domain/index.js';
import type { EventStore, Subscription } from '#event-store/event-store.port.js';
import type { ReactorLogEntry } from './scheduler.js';

/** Outcome events that say a side effect did not happen as the ledger wanted. */
export const EFFECT_FAILURE_TYPES = [
  'Lease.StartFailed',
  'Lease.BeforeEndFailed',
  'Lease.EndFailed',
  'Reservation.EffectsFailed',
  'Reservation.UpdateFailed',
  'Reservation.ReconciliationFailed',
  'Host.EnrollmentFailed',
  'Host.UnenrollmentFailed',
] as const;

const PHASES = ['start', 'before_end', 'end', 'update'] as const;

/** Lateness from seconds to an hour: a reactor that was down runs what fell due then, that late. */
const LATENESS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600];

export interface ReactorMetrics {
  /** Taps the reactor's log: each first run of a due action and each retry. */
  observe(entry: ReactorLogEntry): void;
  /** Counts outcome events appended from now on (earlier ones were counted by the process that saw them). */
  followOutcomes(store: EventStore): Promise<Subscription>;
  /** The freepool watch's last look at a zone. */
  freepool(zone: string, short: boolean): void;
  /** What the reconciler's last look at ended leases found still in the cloud, per kind. */
  leftovers(counts: Readonly<Record<LeftoverKind, number>>): void;
}

const phaseOf = (entry: ReactorLogEntry): string => (typeof entry.phase === 'string' ? entry.phase : 'unknown');

export const registerReactorMetrics = (registry: Registry): ReactorMetrics => {
  const lateness = new Histogram({
    name: 'leasehold_reactor_timer_lateness_seconds',
    help: "How late a lease's due action (start, before_end, end, update) began its first attempt, after its due time",
    labelNames: ['phase'],
    buckets: LATENESS_BUCKETS,
    registers: [registry],
  });
  const retries = new Counter({
    name: 'leasehold_reactor_action_retries_total',
    help: 'Due actions retried after a transient failure',
    labelNames: ['phase'],
    registers: [registry],
  });
  const failures = new Counter({
    name: 'leasehold_effect_failures_total',
    help: 'Outcome events recording a side effect that failed, by event type',
    labelNames: ['type'],
    registers: [registry],
  });
  const repairs = new Counter({
    name: 'leasehold_drift_repairs_total',
    help: 'Reservations the reconciler found drifted from the ledger and put back',
    registers: [registry],
  });
  const exhausted = new Gauge({
    name: 'leasehold_freepool_exhausted',
    help: "1 while a zone has fewer free hosts over the watch window than LEASEHOLD_FREEPOOL_MIN_FREE_HOSTS, as the reactor's freepool watch last saw it",
    labelNames: ['zone'],
    registers: [registry],
  });
  const leftovers = new Gauge({
    name: 'leasehold_reclamation_leftovers',
    help: "Objects of ended leases still in the cloud (servers, aggregates, flavors, floating IPs), as the reconciler's last look found them",
    labelNames: ['kind'],
    registers: [registry],
  });
  const findings = new Counter({
    name: 'leasehold_reclamation_leftover_findings_total',
    help: 'Objects named by Lease.LeftoversFound findings recorded from now on, by kind (one finding per lease and set of leftovers)',
    labelNames: ['kind'],
    registers: [registry],
  });
  for (const kind of LEFTOVER_KINDS) {
    leftovers.set({ kind }, 0);
    findings.inc({ kind }, 0);
  }
  // every series exists from the start, so increase() and absent-free alerts see a 0 before the first failure
  for (const phase of PHASES) {
    lateness.zero({ phase });
    retries.inc({ phase }, 0);
  }
  for (const type of EFFECT_FAILURE_TYPES) failures.inc({ type }, 0);
  const failureTypes: ReadonlySet<string> = new Set(EFFECT_FAILURE_TYPES);

  return {
    leftovers(counts) {
      for (const kind of LEFTOVER_KINDS) leftovers.set({ kind }, counts[kind]);
    },
    freepool(zone, short) {
      exhausted.set({ zone }, short ? 1 : 0);
    },
    observe(entry) {
      // a phase's `complete` step follows its own `begin`: only the first step measures the timer
      const first = entry.step === 'begin' || entry.phase === 'update';
      if (entry.event === 'action' && entry.attempt === 1 && first && typeof entry.latenessMs === 'number') {
        lateness.observe({ phase: phaseOf(entry) }, Math.max(0, entry.latenessMs) / 1000);
      }
      if (entry.event === 'retry') retries.inc({ phase: phaseOf(entry) });
    },
    async followOutcomes(store) {
      const subscription = store.subscribeToAll({
        from: await store.headPosition(),
        filter: { types: [...EFFECT_FAILURE_TYPES, 'Reservation.DriftRepaired', 'Lease.LeftoversFound'] },
        onEvents: async (events) => {
          for (const event of events) {
            if (failureTypes.has(event.type)) failures.inc({ type: event.type });
            else if (event.type === 'Lease.LeftoversFound')
              for (const { kind } of (event.data as { leftovers: readonly Leftover[] }).leftovers) findings.inc({ kind });
            else repairs.inc();
          }
        },
      });
      await subscription.caughtUp;
      return subscription;
    },
  };
};
