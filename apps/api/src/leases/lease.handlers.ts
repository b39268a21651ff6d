import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { LeasePageEntry, LeasePageQuery, LeaseView } from '#read-model/index.js';
import type { Caller } from '#application/caller.js';
import type { CreateLeaseCommand, DeleteLeaseCommand, LeaseWritten, UpdateLeaseCommand } from '#application/leases/lease.commands.js';
import { LeaseUseCases } from '#application/leases/lease.use-cases.js';
import type { Page, PageRequest } from '#application/queries/pagination.js';
import { type LeaseFilter, ReadQueries } from '#application/queries/read.queries.js';
import { BusCommand } from '../bus/bus-command.js';
import { type ReadPosition, queriesAt } from '../read-side/read-position.js';

export class CreateLease extends BusCommand<CreateLeaseCommand, LeaseWritten> {
  readonly type = 'CreateLease';
}

export class UpdateLease extends BusCommand<UpdateLeaseCommand, LeaseWritten> {
  readonly type = 'UpdateLease';
}

export class DeleteLease extends BusCommand<DeleteLeaseCommand, LeaseWritten> {
  readonly type = 'DeleteLease';
}

/** The live list, as each lease's stored document (the read model's JSON, not parsed and serialised again). */
export class ListLeaseDocuments extends Query<Page<string>> {
  constructor(
    readonly caller: Caller,
    readonly filter: LeaseFilter,
    readonly page: PageRequest | null,
  ) {
    super();
  }
}

export class ListLeases extends Query<Page<LeaseView>> {
  constructor(
    readonly caller: Caller,
    readonly filter: LeaseFilter,
    readonly page: PageRequest | null,
    readonly at: ReadPosition,
  ) {
    super();
  }
}

export class GetLease extends Query<LeaseView> {
  constructor(
    readonly caller: Caller,
    readonly leaseId: string,
    readonly at: ReadPosition = null,
  ) {
    super();
  }
}

/** GraphQL's connection: a page by start date, filtered in the query. */
export class SearchLeases extends Query<LeasePageEntry[]> {
  constructor(
    readonly caller: Caller,
    readonly query: LeasePageQuery,
  ) {
    super();
  }
}

@CommandHandler(CreateLease)
export class CreateLeaseHandler implements ICommandHandler<CreateLease> {
  constructor(@Inject(LeaseUseCases) private readonly leases: LeaseUseCases) {}

  execute(command: CreateLease): Promise<LeaseWritten> {
    return this.leases.create(command);
  }
}

@CommandHandler(UpdateLease)
export class UpdateLeaseHandler implements ICommandHandler<UpdateLease> {
  constructor(@Inject(LeaseUseCases) private readonly leases: LeaseUseCases) {}

  execute(command: UpdateLease): Promise<LeaseWritten> {
    return this.leases.update(command);
  }
}

@CommandHandler(DeleteLease)
export class DeleteLeaseHandler implements ICommandHandler<DeleteLease> {
  constructor(@Inject(LeaseUseCases) private readonly leases: LeaseUseCases) {}

  execute(command: DeleteLease): Promise<LeaseWritten> {
    return this.leases.delete(command);
  }
}

@QueryHandler(ListLeaseDocuments)
export class ListLeaseDocumentsHandler implements IQueryHandler<ListLeaseDocuments> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller, filter, page }: ListLeaseDocuments): Promise<Page<string>> {
    return this.queries.leaseDocumentPage(caller, filter, page);
  }
}

@QueryHandler(ListLeases)
export class ListLeasesHandler implements IQueryHandler<ListLeases> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller, filter, page, at }: ListLeases): Promise<Page<LeaseView>> {
    return queriesAt(this.queries, at).leaseListPage(caller, filter, page);
  }
}

@QueryHandler(GetLease)
export class GetLeaseHandler implements IQueryHandler<GetLease> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller, leaseId, at }: GetLease): Promise<LeaseView> {
    return queriesAt(this.queries, at).lease(caller, leaseId);
  }
}

@QueryHandler(SearchLeases)
export class SearchLeasesHandler implements IQueryHandler<SearchLeases> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller, query }: SearchLeases): Promise<LeasePageEntry[]> {
    return this.queries.leasePage(caller, query);
  }
}

export const LEASE_HANDLERS = [
  CreateLeaseHandler,
  UpdateLeaseHandler,
  DeleteLeaseHandler,
  ListLeaseDocumentsHandler,
  ListLeasesHandler,
  GetLeaseHandler,
  SearchLeasesHandler,
];
