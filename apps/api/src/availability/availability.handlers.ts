import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#application/caller.js';
import {
  type Availability,
  AvailabilityQueries,
  type AvailabilityRequest,
  type LeaseExtension,
} from '#application/availability/availability.queries.js';

/** The earliest windows in which a lease request would be admitted, searched from `now`. */
export class FindAvailability extends Query<Availability> {
  constructor(
    readonly caller: Caller,
    readonly request: AvailabilityRequest,
    readonly now: string,
  ) {
    super();
  }
}

/** How far a lease's end could move at `now`. */
export class GetLeaseExtension extends Query<LeaseExtension> {
  constructor(
    readonly caller: Caller,
    readonly leaseId: string,
    readonly now: string,
  ) {
    super();
  }
}

@QueryHandler(FindAvailability)
export class FindAvailabilityHandler implements IQueryHandler<FindAvailability> {
  constructor(@Inject(AvailabilityQueries) private readonly availability: AvailabilityQueries) {}

  execute({ caller, request, now }: FindAvailability): Promise<Availability> {
    return this.availability.windows(caller, request, now);
  }
}

@QueryHandler(GetLeaseExtension)
export class GetLeaseExtensionHandler implements IQueryHandler<GetLeaseExtension> {
  constructor(@Inject(AvailabilityQueries) private readonly availability: AvailabilityQueries) {}

  execute({ caller, leaseId, now }: GetLeaseExtension): Promise<LeaseExtension> {
    return this.availability.extension(caller, leaseId, now);
  }
}

export const AVAILABILITY_HANDLERS = [FindAvailabilityHandler, GetLeaseExtensionHandler];
