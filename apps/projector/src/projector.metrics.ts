import type { MikroORM } from '@mikro-orm/core';
import { Gauge, type Registry } from 'prom-client';
import type { EventStore } from '#event-store/event-store.port.js';
import { ReadModelCensus } from '#read-model/index.js';
import { sharedReading } from '#observability/metrics.js';
import type { ProjectionStatus } from './projection-runner.js';

export interface ProjectorMetricsOptions {
  readonly registry: Registry;
  readonly store: EventStore;
  readonly orm: MikroORM;
  readonly status: () => readonly ProjectionStatus[];
  readonly clock: () => Date;
  /** How far ahead `leasehold_freepool_hosts_free_window` looks. */
  readonly windowMs: number;
}

/** Seconds since the oldest event a reader at `position` has not handled yet was recorded; 0 when none waits. */
export const lagSeconds = async (store: EventStore, position: number, now: Date): Promise<number> => {
  const [next] = await store.readAll({ from: position, limit: 1 });
  return next === undefined ? 0 : Math.max(0, (now.getTime() - Date.parse(next.recordedAt)) / 1000);
};

interface LagRow {
  readonly labels: { readonly projection: string };
  readonly positions: number;
  readonly seconds: number;
  readonly failing: number;
}

const LAG_GAUGES: readonly { readonly name: string; readonly help: string; readonly value: (row: LagRow) => number }[] = [
  {
    name: 'leasehold_projector_lag_positions',
    help: 'Events in the log that a projection has not projected yet',
    value: (row) => row.positions,
  },
  {
    name: 'leasehold_projector_lag_seconds',
    help: 'Age of the oldest event a projection has not projected yet (0 when caught up)',
    value: (row) => row.seconds,
  },
  {
    name: 'leasehold_projector_failing',
    help: '1 while a projection is stopped on an event it cannot project',
    value: (row) => row.failing,
  },
];

const registerLag = (options: ProjectorMetricsOptions): void => {
  const { registry, store, status, clock } = options;
  const reading = sharedReading(async (): Promise<LagRow[]> => {
    const head = await store.headPosition();
    const now = clock();
    return Promise.all(
      status().map(async (p) => ({
        labels: { projection: p.name },
        positions: Math.max(0, head - p.position),
        seconds: await lagSeconds(store, p.position, now),
        failing: p.failure === null ? 0 : 1,
      })),
    );
  });
  for (const { name, help, value } of LAG_GAUGES) {
    new Gauge({
      name,
      help,
      labelNames: ['projection'],
      registers: [registry],
      async collect() {
        for (const row of await reading()) this.set(row.labels, value(row));
      },
    });
  }
};

const registerLeases = (registry: Registry, census: ReadModelCensus): void => {
  new Gauge({
    name: 'leasehold_leases',
    help: 'Leases in the read model by Blazar status',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      for (const [status, count] of await census.leasesByStatus()) this.set({ status }, count);
    },
  });
  new Gauge({
    name: 'leasehold_reservations_active',
    help: 'Active reservations by resource type',
    labelNames: ['resource_type'],
    registers: [registry],
    async collect() {
      const counts = await census.activeReservationsByType();
      this.reset();
      for (const [type, count] of counts) this.set({ resource_type: type }, count);
    },
  });
};

type ZoneField = 'hosts' | 'freeNow' | 'freeWindow' | 'down';

const FREEPOOL_GAUGES: readonly { readonly name: string; readonly help: string; readonly field: ZoneField }[] = [
  {
    name: 'leasehold_freepool_hosts',
    help: 'Freepool hosts that take bookings (reservable and up), per availability zone',
    field: 'hosts',
  },
  {
    name: 'leasehold_freepool_hosts_free',
    help: 'Freepool hosts (reservable, up) that no booking holds now, per availability zone',
    field: 'freeNow',
  },
  {
    name: 'leasehold_freepool_hosts_free_window',
    help: 'Freepool hosts that no booking holds at any instant of the watch window (LEASEHOLD_FREEPOOL_WATCH_HOURS, default 24), per zone',
    field: 'freeWindow',
  },
  { name: 'leasehold_hosts_down', help: 'Registered hosts their monitor reports down, per availability zone', field: 'down' },
];

const registerFreepool = (options: ProjectorMetricsOptions, census: ReadModelCensus): void => {
  const { registry, clock, windowMs } = options;
  const reading = sharedReading(() => census.freepool(clock().getTime(), windowMs));
  for (const { name, help, field } of FREEPOOL_GAUGES) {
    new Gauge({
      name,
      help,
      labelNames: ['zone'],
      registers: [registry],
      async collect() {
        const zones = await reading();
        // a zone whose last host left is gone, not stuck at its last count
        this.reset();
        for (const zone of zones) this.set({ zone: zone.zone }, zone[field]);
      },
    });
  }
};

/**
 * The projector's gauges: its own lag, and counts over the read models it keeps (one process owns
 * them, so one scrape target tells them once however many API processes read them).
 */
export const registerProjectorMetrics = (options: ProjectorMetricsOptions): void => {
  const census = new ReadModelCensus(options.orm);
  registerLag(options);
  registerLeases(options.registry, census);
  registerFreepool(options, census);
};
