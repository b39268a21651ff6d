import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#application/caller.js';
import { CapacityQueries, type CapacityReport, type CapacityRequest } from '#application/queries/capacity.queries.js';

export class GetCapacityReport extends Query<CapacityReport> {
  constructor(
    readonly caller: Caller,
    readonly request: CapacityRequest,
  ) {
    super();
  }
}

@QueryHandler(GetCapacityReport)
export class GetCapacityReportHandler implements IQueryHandler<GetCapacityReport> {
  constructor(@Inject(CapacityQueries) private readonly capacity: CapacityQueries) {}

  execute({ caller, request }: GetCapacityReport): Promise<CapacityReport> {
    return this.capacity.report(caller, request);
  }
}

export const CAPACITY_HANDLERS = [GetCapacityReportHandler];
