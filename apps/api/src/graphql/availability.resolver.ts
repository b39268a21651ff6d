import { Inject } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { Args, Context, Query, Resolver } from '@nestjs/graphql';
import { DateTime } from 'luxon';
import type { Availability } from '#application/availability/availability.queries.js';
import { requestDate } from '#application/availability/counter-offer.js';
import { parseAvailabilityQuery } from '../availability/availability-request.parser.js';
import { FindAvailability } from '../availability/availability.handlers.js';
import { CLOCK } from '../tokens.js';
import { optionalReportDate, reportDate } from '../usage/usage-request.parser.js';
import { GetUsageReport, GetUsageScope } from '../usage/usage.handlers.js';
import { AvailabilityType, CapacityReportType, UsageReportType } from './availability.types.js';
import { ACTIONS } from '#application/policy/policy-defaults.js';
import { authorize } from '#application/caller.js';
import { parseCapacityQuery } from '../capacity/capacity-request.parser.js';
import { reportBody } from '../capacity/capacity-body.js';
import { GetCapacityReport } from '../capacity/capacity.handlers.js';
import { type GraphqlContext, callerIn } from './graphql-context.js';
import { AvailabilityInput, restBody } from './lease-input.types.js';
import { reasonBody } from '../availability/no-window-body.js';
import { RequestReads } from './request-reads.js';

const availabilityBody = ({ windows, searchedUntil, reason }: Availability): AvailabilityType => ({
  windows: windows.map((window) => ({
    start_date: requestDate(window.startDate),
    end_date: requestDate(window.endDate),
    reservations: window.reservations.map((r) => ({
      resource_type: r.resourceType,
      requested: r.requested,
      matching: r.matching,
      free: r.free,
    })),
  })),
  searched_until: searchedUntil === null ? null : requestDate(searchedUntil),
  reason: reason === null ? null : reasonBody(reason),
});

/**
 * POST /v1/availability's body for these arguments. ReservationInput has every type's fields, and GraphQL's null says "not given": a
 * field left null is left out, so that only a field given a value counts as one of another reservation type (a 400 naming it).
 */
const searchBody = (request: AvailabilityInput): Record<string, unknown> => {
  const body = restBody(request);
  const reservations = (body.reservations as readonly Record<string, unknown>[]).map((reservation) =>
    Object.fromEntries(Object.entries(reservation).filter(([, value]) => value !== null)),
  );
  return { ...body, reservations };
};

/** When a lease request would be admitted (POST /v1/availability) and what was used (GET /v1/usage): the same queries. */
@Resolver()
export class AvailabilityResolver {
  constructor(
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(RequestReads) private readonly reads: RequestReads,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  @Query(() => CapacityReportType, { description: "The operators' capacity table (GET /v1/capacity; admins)" })
  async capacity(
    @Context() context: GraphqlContext,
    @Args('start', { type: () => String }) start: string,
    @Args('end', { type: () => String }) end: string,
    @Args('step', { type: () => String, nullable: true }) step: string | null,
    @Args('duration', { type: () => String, nullable: true }) duration: string | null,
    @Args('failure_domain', { type: () => String, nullable: true }) failureDomain: string | null,
  ): Promise<CapacityReportType> {
    const caller = callerIn(context);
    // the policy first, as REST: a member learns nothing, not even which argument was wrong
    authorize(caller, ACTIONS.capacityGet);
    const parsed = parseCapacityQuery({
      start,
      end,
      step: step ?? undefined,
      duration: duration ?? undefined,
      failure_domain: failureDomain ?? undefined,
    });
    const { capacity } = reportBody(await this.reads.of(context).report(() => this.queries.execute(new GetCapacityReport(caller, parsed))));
    return { ...capacity, leases: capacity.leases ?? null };
  }

  @Query(() => AvailabilityType, { description: 'The earliest windows in which a lease request would be admitted' })
  async availability(
    @Context() context: GraphqlContext,
    @Args('request', { type: () => AvailabilityInput }) request: AvailabilityInput,
  ): Promise<AvailabilityType> {
    const caller = callerIn(context);
    const now = DateTime.fromJSDate(this.clock(), { zone: 'utc' });
    const query = parseAvailabilityQuery(searchBody(request), now);
    return availabilityBody(
      await this.reads.of(context).report(() => this.queries.execute(new FindAvailability(caller, query, now.toISO() as string))),
    );
  }

  @Query(() => UsageReportType, { description: "A usage report: a project's own (members), any or every project's (admins)" })
  async usage(
    @Context() context: GraphqlContext,
    @Args('start', { type: () => String }) start: string,
    @Args('end', { type: () => String }) end: string,
    @Args('project_id', { type: () => String, nullable: true }) projectId: string | null,
    @Args('group_by', { type: () => String, nullable: true }) groupBy: string | null,
    @Args('rate_card', { type: () => String, nullable: true }) rateCard: string | null,
    @Args('as_of_position', { type: () => String, nullable: true }) asOfPosition: string | null,
    @Args('until', { type: () => String, nullable: true }) until: string | null,
  ): Promise<UsageReportType> {
    const caller = callerIn(context);
    await this.queries.execute(new GetUsageScope(caller, projectId ?? null));
    const query = {
      start: reportDate('start', start),
      end: reportDate('end', end),
      projectId: projectId ?? null,
      groupBy: groupBy ?? null,
      rateCard: rateCard ?? null,
      asOfPosition: asOfPosition ?? null,
      until: optionalReportDate('until', until),
      now: this.clock().toISOString(),
    };
    const report = await this.reads.of(context).report(() => this.queries.execute(new GetUsageReport(caller, query)));
    return report.usage as UsageReportType;
  }
}
