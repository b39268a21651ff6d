import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { AvailabilityIntervalRow } from '#read-model/index.js';
import type { Caller } from '#application/caller.js';
import { ReadQueries } from '#application/queries/read.queries.js';
import type { BookedResource } from '#plugins/reservation-type.js';

type Kind = 'host' | 'floatingip';

/** The bookings of these reservations (a page of leases' allocations, read at once). */
export class GetReservationBookings extends Query<AvailabilityIntervalRow[]> {
  constructor(
    readonly caller: Caller,
    readonly kind: BookedResource['kind'],
    readonly reservationIds: readonly string[],
  ) {
    super();
  }
}

/** The bookings on these hosts or addresses of leases not ended at `nowMs`. */
export class GetResourceBookings extends Query<AvailabilityIntervalRow[]> {
  constructor(
    readonly caller: Caller,
    readonly kind: Kind,
    readonly resourceIds: readonly string[],
    readonly nowMs: number,
  ) {
    super();
  }
}

@QueryHandler(GetReservationBookings)
export class GetReservationBookingsHandler implements IQueryHandler<GetReservationBookings> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller, kind, reservationIds }: GetReservationBookings): Promise<AvailabilityIntervalRow[]> {
    return this.queries.reservationBookings(caller, kind, reservationIds);
  }
}

@QueryHandler(GetResourceBookings)
export class GetResourceBookingsHandler implements IQueryHandler<GetResourceBookings> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller, kind, resourceIds, nowMs }: GetResourceBookings): Promise<AvailabilityIntervalRow[]> {
    return this.queries.resourceBookings(caller, kind, resourceIds, nowMs);
  }
}

export const BOOKING_HANDLERS = [GetReservationBookingsHandler, GetResourceBookingsHandler];
