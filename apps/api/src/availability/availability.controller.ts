import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { KnownParameters, QueryParameters } from '../http/known-parameters.guard.js';
import type { Request } from '../http/exchange.js';
import { DateTime } from 'luxon';
import type { Availability, AvailabilityWindow, LeaseExtension } from '#application/availability/availability.queries.js';
import { requestDate } from '#application/availability/counter-offer.js';
import { callerOf } from '../http/request-context.js';
import { CLOCK } from '../tokens.js';
import { AVAILABILITY_PARAMETERS } from '../http/route-parameters.js';
import { parseAvailabilityParameters, parseAvailabilityQuery } from './availability-request.parser.js';
import { FindAvailability, GetLeaseExtension } from './availability.handlers.js';
import { reasonBody } from './no-window-body.js';

/** GET /v1/availability's query parameters: a reservation's fields (every type's) and the search's own. */
const AVAILABILITY_QUERY = Object.keys(AVAILABILITY_PARAMETERS);

const windowBody = (window: AvailabilityWindow) => ({
  start_date: requestDate(window.startDate),
  end_date: requestDate(window.endDate),
  reservations: window.reservations.map((r) => ({
    resource_type: r.resourceType,
    requested: r.requested,
    matching: r.matching,
    free: r.free,
  })),
});

const availabilityBody = ({ windows, searchedUntil, reason }: Availability) => ({
  windows: windows.map(windowBody),
  searched_until: searchedUntil === null ? null : requestDate(searchedUntil),
  reason: reason === null ? null : reasonBody(reason),
});

const extensionBody = (extension: LeaseExtension) => ({
  lease_id: extension.leaseId,
  end_date: requestDate(extension.endDate),
  max_end_date: extension.maxEndDate === null ? null : requestDate(extension.maxEndDate),
  conflict_end_date: extension.conflictEndDate === null ? null : requestDate(extension.conflictEndDate),
});

/**
 * When a lease request would be admitted, answered from the write side's calendars (caught up to the
 * log's head before each answer, so a client's own writes are always seen: no projector wait).
 */
@Controller('v1')
@UseGuards(KnownParameters)
export class AvailabilityController {
  constructor(
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  private now(): DateTime {
    return DateTime.fromJSDate(this.clock(), { zone: 'utc' });
  }

  @Post('availability')
  @HttpCode(200)
  async search(@Body() body: unknown, @Req() request: Request) {
    const now = this.now();
    return availabilityBody(
      await this.queries.execute(new FindAvailability(callerOf(request), parseAvailabilityQuery(body, now), now.toISO() as string)),
    );
  }

  @Get('availability')
  @QueryParameters(AVAILABILITY_QUERY, 1)
  async searchOne(@Req() request: Request, ...values: (string | undefined)[]) {
    const query = Object.fromEntries(AVAILABILITY_QUERY.map((name, index) => [name, values[index]]));
    const now = this.now();
    return availabilityBody(
      await this.queries.execute(new FindAvailability(callerOf(request), parseAvailabilityParameters(query, now), now.toISO() as string)),
    );
  }

  @Get('leases/:leaseId/extension')
  async extension(@Param('leaseId') leaseId: string, @Req() request: Request) {
    return {
      extension: extensionBody(await this.queries.execute(new GetLeaseExtension(callerOf(request), leaseId, this.now().toISO() as string))),
    };
  }
}
