import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#application/caller.js';
import type { HistoryEntry } from '#application/history/history-entry.js';
import { HistoryQueries, type StreamReader } from '#application/history/history.queries.js';

/** A lease's events; `read`: how its streams are read (a GraphQL operation shares and bounds its reads), the store's own when null. */
export class GetLeaseHistory extends Query<HistoryEntry[]> {
  constructor(
    readonly caller: Caller,
    readonly leaseId: string,
    readonly read: StreamReader | null = null,
  ) {
    super();
  }
}

export class GetHostHistory extends Query<HistoryEntry[]> {
  constructor(
    readonly caller: Caller,
    readonly hostId: string,
  ) {
    super();
  }
}

export class GetFloatingIpHistory extends Query<HistoryEntry[]> {
  constructor(
    readonly caller: Caller,
    readonly floatingIpId: string,
  ) {
    super();
  }
}

export class GetLeaseRequestHistory extends Query<HistoryEntry[]> {
  constructor(
    readonly caller: Caller,
    readonly requestId: string,
  ) {
    super();
  }
}

@QueryHandler(GetLeaseRequestHistory)
export class GetLeaseRequestHistoryHandler implements IQueryHandler<GetLeaseRequestHistory> {
  constructor(@Inject(HistoryQueries) private readonly history: HistoryQueries) {}

  execute({ caller, requestId }: GetLeaseRequestHistory): Promise<HistoryEntry[]> {
    return this.history.leaseRequest(caller, requestId);
  }
}

@QueryHandler(GetLeaseHistory)
export class GetLeaseHistoryHandler implements IQueryHandler<GetLeaseHistory> {
  constructor(@Inject(HistoryQueries) private readonly history: HistoryQueries) {}

  execute({ caller, leaseId, read }: GetLeaseHistory): Promise<HistoryEntry[]> {
    return read === null ? this.history.lease(caller, leaseId) : this.history.lease(caller, leaseId, read);
  }
}

@QueryHandler(GetHostHistory)
export class GetHostHistoryHandler implements IQueryHandler<GetHostHistory> {
  constructor(@Inject(HistoryQueries) private readonly history: HistoryQueries) {}

  execute({ caller, hostId }: GetHostHistory): Promise<HistoryEntry[]> {
    return this.history.host(caller, hostId);
  }
}

@QueryHandler(GetFloatingIpHistory)
export class GetFloatingIpHistoryHandler implements IQueryHandler<GetFloatingIpHistory> {
  constructor(@Inject(HistoryQueries) private readonly history: HistoryQueries) {}

  execute({ caller, floatingIpId }: GetFloatingIpHistory): Promise<HistoryEntry[]> {
    return this.history.floatingIp(caller, floatingIpId);
  }
}

export const HISTORY_HANDLERS = [GetLeaseHistoryHandler, GetLeaseRequestHistoryHandler, GetHostHistoryHandler, GetFloatingIpHistoryHandler];
