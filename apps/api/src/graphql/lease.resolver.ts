import { Inject } from '@nestjs/common';
import { Args, Context, ID, Int, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { DateTime } from 'luxon';
import { invalid } from '#domain/index.js';
import type { LeaseView, ReservationView } from '#read-model/index.js';
import type { HistoryEntry } from '#application/history/history-entry.js';
import { reservationType } from '#plugins/reservation-types.js';
import { parseInstant } from '../http/blazar-dates.js';
import { checkPathParameter } from '../http/route-parameters.js';
import { CLOCK } from '../tokens.js';
import type { GraphqlContext } from './graphql-context.js';
import { cursorOf, pageSize, parseCursor } from './lease-cursor.js';
import { AllocationType, LeaseConnectionType, LeaseFilterInput, LeaseType, ReservationType } from './lease.types.js';
import { HistoryEntryType } from './history.types.js';
import { allocationOf } from './allocations.js';
import { RequestReads } from './request-reads.js';

const STATUSES = ['PENDING', 'STARTING', 'ACTIVE', 'TERMINATING', 'TERMINATED', 'ERROR'];

const statusFilter = (status: string | null | undefined): string | null => {
  if (status === undefined || status === null) return null;
  if (!STATUSES.includes(status)) throw invalid('MALFORMED_PARAMETER', `Malformed parameter status (one of ${STATUSES.join(', ')})`);
  return status;
};

/** Leases as GET /v1/leases and GET /v1/leases/{id} give them (the same queries and policy), paged and filtered. */
@Resolver(() => LeaseType)
export class LeaseResolver {
  constructor(
    @Inject(RequestReads) private readonly reads: RequestReads,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  @Query(() => LeaseConnectionType, {
    description: "The leases the caller may read (its project's; every project's for admins), by start date",
  })
  async leases(
    @Context() context: GraphqlContext,
    @Args('filter', { type: () => LeaseFilterInput, nullable: true }) filter: LeaseFilterInput | null,
    @Args('first', { type: () => Int, nullable: true, description: 'Leases per page, 1 to 500 (default 50)' }) first: number | null,
    @Args('after', { type: () => String, nullable: true, description: "The previous page's endCursor" }) after: string | null,
  ): Promise<LeaseConnectionType> {
    const reads = this.reads.of(context);
    const now = DateTime.fromJSDate(this.clock(), { zone: 'utc' });
    const size = pageSize(first);
    const dated = (name: string, value: string | null | undefined) =>
      value === undefined || value === null ? null : parseInstant(name, value, now);
    const query = {
      projectId: filter?.project_id ?? null,
      status: statusFilter(filter?.status),
      name: filter?.name ?? null,
      startsAfter: dated('starts_after', filter?.starts_after),
      endsBefore: dated('ends_before', filter?.ends_before),
      after: after === null || after === undefined ? null : parseCursor(after),
      limit: size + 1,
    };
    await reads.fresh('leases');
    const entries = await reads.leasePage(query);
    const page = entries.slice(0, size);
    const last = page.at(-1);
    return {
      edges: page.map((entry) => ({ cursor: cursorOf(entry), node: entry.lease as unknown as LeaseType })),
      pageInfo: { hasNextPage: entries.length > size, endCursor: last === undefined ? null : cursorOf(last) },
    };
  }

  @Query(() => LeaseType, { description: "One lease; NOT_FOUND when there is none, FORBIDDEN for another project's" })
  async lease(@Context() context: GraphqlContext, @Args('id', { type: () => ID }) id: string): Promise<LeaseView> {
    const reads = this.reads.of(context);
    checkPathParameter('leaseId', id);
    await reads.fresh('leases');
    return reads.lease(id);
  }

  @ResolveField('history', () => [HistoryEntryType])
  async history(@Parent() lease: LeaseView, @Context() context: GraphqlContext): Promise<HistoryEntry[]> {
    return this.reads.of(context).history(lease.id);
  }
}

/** Each reservation's allocations, read for every reservation of the answer at once. */
@Resolver(() => ReservationType)
export class ReservationResolver {
  constructor(@Inject(RequestReads) private readonly reads: RequestReads) {}

  @ResolveField('allocations', () => [AllocationType], { nullable: true })
  async allocations(@Parent() reservation: ReservationView, @Context() context: GraphqlContext): Promise<AllocationType[]> {
    const kind = reservationType(reservation.resource_type).view.bookedOn;
    return (await this.reads.of(context).bookingsOfReservation(kind, reservation.id)).map(allocationOf);
  }
}
