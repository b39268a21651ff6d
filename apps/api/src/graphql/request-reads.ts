import DataLoader from 'dataloader';
import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import type {
  AvailabilityIntervalRow,
  FloatingIpView,
  HostView,
  LeasePageEntry,
  LeasePageQuery,
  LeaseView,
  ReadModelName,
} from '#read-model/index.js';
import type { Caller } from '#application/caller.js';
import type { HistoryEntry } from '#application/history/history-entry.js';
import type { BookedResource } from '#plugins/reservation-type.js';
import { RESOURCE_KINDS, type ResourceKindName } from '#plugins/resource-kinds.js';
import { API_CONFIG, type ApiConfig } from '../config.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { markStale } from '../read-side/read-your-writes.interceptor.js';
import { CLOCK, EVENT_STORE } from '../tokens.js';
import { type GraphqlContext, callerIn } from './graphql-context.js';
import { OperationBudget, budgetOf } from './operation-budget.js';
import { REPORT_ROWS } from './query-cost.js';
import { GetReservationBookings, GetResourceBookings } from './bookings.handlers.js';
import { ListAllFloatingIps } from '../floatingips/floating-ip.handlers.js';
import { GetLeaseHistory } from '../history/history.handlers.js';
import { GetHost, ListAllHosts } from '../hosts/host.handlers.js';
import { GetLease, SearchLeases } from '../leases/lease.handlers.js';

type Kind = 'host' | 'floatingip';
type ReservationKind = BookedResource['kind'];
type BookingsLoader = DataLoader<string, AvailabilityIntervalRow[]>;

const groupBy = <K>(
  keys: readonly K[],
  rows: readonly AvailabilityIntervalRow[],
  keyOf: (row: AvailabilityIntervalRow) => K,
): AvailabilityIntervalRow[][] => {
  const grouped = new Map<K, AvailabilityIntervalRow[]>();
  for (const row of rows) grouped.set(keyOf(row), [...(grouped.get(keyOf(row)) ?? []), row]);
  return keys.map((key) => grouped.get(key) ?? []);
};

const one = (): number => 1;
const length = (rows: readonly unknown[]): number => rows.length;

/**
 * The reads of one operation, every one within its budget (operation-budget.ts): every reservation's
 * (or resource's) bookings asked for while a level of the query resolves are read together, one query
 * per kind, however many leases the page holds; each stream a history needs is read once, however many
 * leases' histories share it; and each read model is waited for once (read-your-writes, as REST) until
 * the operation writes again.
 */
export class OperationReads {
  private readonly waited = new Map<ReadModelName, Promise<void>>();
  private readonly streams = new Map<string, Promise<RecordedEvent[]>>();
  private readonly reservationBookings: Record<ReservationKind, DataLoader<string, AvailabilityIntervalRow[]>>;
  private readonly resourceBookings: Record<Kind, DataLoader<string, AvailabilityIntervalRow[]>>;
  private readonly histories: DataLoader<string, HistoryEntry[]>;

  constructor(
    readonly caller: Caller,
    private readonly context: GraphqlContext,
    private readonly queries: QueryBus,
    private readonly store: EventStore,
    private readonly consistency: ReadYourWrites,
    private readonly budget: OperationBudget,
    now: () => Date,
  ) {
    const byReservation = (kind: ReservationKind) =>
      new DataLoader<string, AvailabilityIntervalRow[]>(async (ids) => {
        await this.fresh('availability');
        const rows = await budget.read(() => queries.execute(new GetReservationBookings(caller, kind, ids)), length);
        return groupBy(ids, rows, (row) => row.reservationId);
      });
    const byResource = (kind: Kind) =>
      new DataLoader<string, AvailabilityIntervalRow[]>(async (ids) => {
        await this.fresh('availability');
        const rows = await budget.read(() => queries.execute(new GetResourceBookings(caller, kind, ids, now().getTime())), length);
        return groupBy(ids, rows, (row) => row.resourceId);
      });
    this.reservationBookings = {
      host: byReservation('host'),
      floatingip: byReservation('floatingip'),
      ...(Object.fromEntries(RESOURCE_KINDS.map(({ kind }) => [kind, byReservation(kind)])) as Record<ResourceKindName, BookingsLoader>),
    };
    this.resourceBookings = { host: byResource('host'), floatingip: byResource('floatingip') };
    // a lease's history is its own streams in the log, read per lease (no read model); the hosts' and addresses' streams are shared
    this.histories = new DataLoader(async (ids) =>
      Promise.all(
        ids.map((id) =>
          queries.execute(new GetLeaseHistory(caller, id, (streamId) => this.stream(streamId))).catch((error: unknown) => error as Error),
        ),
      ),
    );
  }

  /** Waits (bounded) until the read models include this process's last write; a read served before says so in the response headers. */
  async fresh(...names: readonly ReadModelName[]): Promise<void> {
    await this.budget.unlessStopped(Promise.all(names.map((name) => this.waitOnce(name))));
  }

  /** After a write in this operation, the next reads wait for it, and read again what it may have changed. */
  wrote(): void {
    this.waited.clear();
    this.streams.clear();
    this.histories.clearAll();
  }

  leasePage(query: LeasePageQuery): Promise<LeasePageEntry[]> {
    return this.budget.read(() => this.queries.execute(new SearchLeases(this.caller, query)), length);
  }

  lease(leaseId: string): Promise<LeaseView> {
    return this.budget.read(() => this.queries.execute(new GetLease(this.caller, leaseId)), one);
  }

  hosts(): Promise<HostView[]> {
    return this.budget.read(() => this.queries.execute(new ListAllHosts(this.caller)), length);
  }

  host(hostId: string): Promise<HostView> {
    return this.budget.read(() => this.queries.execute(new GetHost(this.caller, hostId)), one);
  }

  floatingIps(): Promise<FloatingIpView[]> {
    return this.budget.read(() => this.queries.execute(new ListAllFloatingIps(this.caller)), length);
  }

  /** An availability search, a usage report or a capacity table: REST's reads, made in one piece and counted as REPORT_ROWS. */
  report<T>(run: () => Promise<T>): Promise<T> {
    return this.budget.read(run, () => REPORT_ROWS);
  }

  bookingsOfReservation(kind: ReservationKind, reservationId: string): Promise<AvailabilityIntervalRow[]> {
    return this.reservationBookings[kind].load(reservationId);
  }

  bookingsOn(kind: Kind, resourceId: string): Promise<AvailabilityIntervalRow[]> {
    return this.resourceBookings[kind].load(resourceId);
  }

  history(leaseId: string): Promise<HistoryEntry[]> {
    return this.histories.load(leaseId);
  }

  private stream(streamId: string): Promise<RecordedEvent[]> {
    const known = this.streams.get(streamId);
    if (known !== undefined) return known;
    const reading = this.budget.read(() => this.store.readStream(streamId), length);
    this.streams.set(streamId, reading);
    return reading;
  }

  private waitOnce(name: ReadModelName): Promise<void> {
    const known = this.waited.get(name);
    if (known !== undefined) return known;
    const waiting = this.consistency.waitFor([name]).then((stale) => {
      if (stale !== null && this.context.res !== undefined) markStale(this.context.res, null, stale);
    });
    this.waited.set(name, waiting);
    return waiting;
  }
}

/**
 * Hands each operation its own OperationReads (its loaders' caches live as long as the operation), within
 * the budget the query plugin gave it; an operation the plugin did not see (none should read) gets a budget of the same limits.
 */
@Injectable()
export class RequestReads {
  private readonly byContext = new WeakMap<GraphqlContext, OperationReads>();

  constructor(
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  of(context: GraphqlContext): OperationReads {
    const known = this.byContext.get(context);
    if (known !== undefined) return known;
    const budget = budgetOf(context) ?? new OperationBudget(this.config.graphql);
    const reads = new OperationReads(callerIn(context), context, this.queries, this.store, this.consistency, budget, this.clock);
    this.byContext.set(context, reads);
    return reads;
  }
}
