import DataLoader from 'dataloader';
import { Inject, Injectable } from '@nestjs/common';
import type { AvailabilityIntervalRow, ReadModelName } from '#read-model/index.js';
import type { Caller } from '#application/caller.js';
import type { HistoryEntry } from '#application/history/history-entry.js';
import { HistoryQueries } from '#application/history/history.queries.js';
import { ReadQueries } from '#application/queries/read.queries.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { markStale } from '../read-side/read-your-writes.interceptor.js';
import { CLOCK } from '../tokens.js';
import { type GraphqlContext, callerIn } from './graphql-context.js';

type Kind = 'host' | 'floatingip';

const groupBy = <K>(
  keys: readonly K[],
  rows: readonly AvailabilityIntervalRow[],
  keyOf: (row: AvailabilityIntervalRow) => K,
): AvailabilityIntervalRow[][] => {
  const grouped = new Map<K, AvailabilityIntervalRow[]>();
  for (const row of rows) grouped.set(keyOf(row), [...(grouped.get(keyOf(row)) ?? []), row]);
  return keys.map((key) => grouped.get(key) ?? []);
};

/**
 * The reads of one operation: every reservation's (or resource's) bookings asked for while a level of
 * the query resolves are read together, one query per kind, however many leases the page holds; and
 * each read model is waited for once (read-your-writes, as REST) until the operation writes again.
 */
export class OperationReads {
  private readonly waited = new Map<ReadModelName, Promise<void>>();
  private readonly reservationBookings: Record<Kind, DataLoader<string, AvailabilityIntervalRow[]>>;
  private readonly resourceBookings: Record<Kind, DataLoader<string, AvailabilityIntervalRow[]>>;
  private readonly histories: DataLoader<string, HistoryEntry[]>;

  constructor(
    readonly caller: Caller,
    private readonly context: GraphqlContext,
    private readonly queries: ReadQueries,
    history: HistoryQueries,
    private readonly consistency: ReadYourWrites,
    now: () => Date,
  ) {
    const byReservation = (kind: Kind) =>
      new DataLoader<string, AvailabilityIntervalRow[]>(async (ids) => {
        await this.fresh('availability');
        return groupBy(ids, await queries.reservationBookings(caller, kind, ids), (row) => row.reservationId);
      });
    const byResource = (kind: Kind) =>
      new DataLoader<string, AvailabilityIntervalRow[]>(async (ids) => {
        await this.fresh('availability');
        return groupBy(ids, await queries.resourceBookings(caller, kind, ids, now().getTime()), (row) => row.resourceId);
      });
    this.reservationBookings = { host: byReservation('host'), floatingip: byReservation('floatingip') };
    this.resourceBookings = { host: byResource('host'), floatingip: byResource('floatingip') };
    // a lease's history is its own streams in the log, read per lease (no read model): the cost limit bounds how many
    this.histories = new DataLoader(async (ids) =>
      Promise.all(ids.map((id) => history.lease(caller, id).catch((error: unknown) => error as Error))),
    );
  }

  get read(): ReadQueries {
    return this.queries;
  }

  /** Waits (bounded) until the read models include this process's last write; a read served before says so in the response headers. */
  async fresh(...names: readonly ReadModelName[]): Promise<void> {
    await Promise.all(names.map((name) => this.waitOnce(name)));
  }

  /** After a write in this operation, the next reads wait for it. */
  wrote(): void {
    this.waited.clear();
  }

  bookingsOfReservation(kind: Kind, reservationId: string): Promise<AvailabilityIntervalRow[]> {
    return this.reservationBookings[kind].load(reservationId);
  }

  bookingsOn(kind: Kind, resourceId: string): Promise<AvailabilityIntervalRow[]> {
    return this.resourceBookings[kind].load(resourceId);
  }

  history(leaseId: string): Promise<HistoryEntry[]> {
    return this.histories.load(leaseId);
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

/** Hands each operation its own OperationReads (its loaders' caches live as long as the operation). */
@Injectable()
export class RequestReads {
  private readonly byContext = new WeakMap<GraphqlContext, OperationReads>();

  constructor(
    @Inject(ReadQueries) private readonly queries: ReadQueries,
    @Inject(HistoryQueries) private readonly history: HistoryQueries,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  of(context: GraphqlContext): OperationReads {
    const known = this.byContext.get(context);
    if (known !== undefined) return known;
    const reads = new OperationReads(callerIn(context), context, this.queries, this.history, this.consistency, this.clock);
    this.byContext.set(context, reads);
    return reads;
  }
}
