import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { AllocationFilter, HostAllocationView, HostView, PropertyRow } from '#read-model/index.js';
import type { Caller } from '#application/caller.js';
import type { Handled } from '#application/command-handler.js';
import {
  HostUseCases,
  type HostWritten,
  type RegisterHost as RegisterHostCommand,
  type SetPropertyPrivacy as SetPropertyPrivacyCommand,
  type UnregisterHost as UnregisterHostCommand,
  type UpdateHost as UpdateHostCommand,
} from '#application/hosts/host.use-cases.js';
import type { Page, PageRequest } from '#application/queries/pagination.js';
import { type PropertyListing, ReadQueries } from '#application/queries/read.queries.js';
import { BusCommand } from '../bus/bus-command.js';
import { type ReadPosition, queriesAt } from '../read-side/read-position.js';

export class RegisterHost extends BusCommand<RegisterHostCommand, HostWritten> {
  readonly type = 'RegisterHost';
}

export class UpdateHost extends BusCommand<UpdateHostCommand, HostWritten> {
  readonly type = 'UpdateHost';
}

export class UnregisterHost extends BusCommand<UnregisterHostCommand, Handled<null>> {
  readonly type = 'UnregisterHost';
}

export class SetPropertyPrivacy extends BusCommand<SetPropertyPrivacyCommand, Handled<null>> {
  readonly type = 'SetPropertyPrivacy';
}

/** Every host, in registration order (GraphQL's list). */
export class ListAllHosts extends Query<HostView[]> {
  constructor(readonly caller: Caller) {
    super();
  }
}

export class ListHosts extends Query<Page<HostView>> {
  constructor(
    readonly caller: Caller,
    readonly page: PageRequest | null,
    readonly at: ReadPosition,
  ) {
    super();
  }
}

export class GetHost extends Query<HostView> {
  constructor(
    readonly caller: Caller,
    readonly hostId: string,
    readonly at: ReadPosition = null,
  ) {
    super();
  }
}

/** Every host's allocations; without a filter only those of leases not ended at `now`. */
export class ListHostAllocations extends Query<Page<HostAllocationView>> {
  constructor(
    readonly caller: Caller,
    readonly filter: AllocationFilter,
    readonly now: string,
    readonly page: PageRequest | null,
    readonly at: ReadPosition,
  ) {
    super();
  }
}

export class GetHostAllocation extends Query<HostAllocationView> {
  constructor(
    readonly caller: Caller,
    readonly hostId: string,
    readonly filter: AllocationFilter,
    readonly now: string,
  ) {
    super();
  }
}

export class ListProperties extends Query<PropertyListing[]> {
  constructor(
    readonly caller: Caller,
    readonly options: { readonly detail: boolean; readonly all: boolean },
  ) {
    super();
  }
}

/** One property as projected, read right after the caller changed it (the write was authorized). */
export class GetProperty extends Query<PropertyRow> {
  constructor(readonly name: string) {
    super();
  }
}

@CommandHandler(RegisterHost)
export class RegisterHostHandler implements ICommandHandler<RegisterHost> {
  constructor(@Inject(HostUseCases) private readonly hosts: HostUseCases) {}

  execute(command: RegisterHost): Promise<HostWritten> {
    return this.hosts.register(command);
  }
}

@CommandHandler(UpdateHost)
export class UpdateHostHandler implements ICommandHandler<UpdateHost> {
  constructor(@Inject(HostUseCases) private readonly hosts: HostUseCases) {}

  execute(command: UpdateHost): Promise<HostWritten> {
    return this.hosts.update(command);
  }
}

@CommandHandler(UnregisterHost)
export class UnregisterHostHandler implements ICommandHandler<UnregisterHost> {
  constructor(@Inject(HostUseCases) private readonly hosts: HostUseCases) {}

  execute(command: UnregisterHost): Promise<Handled<null>> {
    return this.hosts.unregister(command);
  }
}

@CommandHandler(SetPropertyPrivacy)
export class SetPropertyPrivacyHandler implements ICommandHandler<SetPropertyPrivacy> {
  constructor(@Inject(HostUseCases) private readonly hosts: HostUseCases) {}

  execute(command: SetPropertyPrivacy): Promise<Handled<null>> {
    return this.hosts.setPropertyPrivacy(command);
  }
}

@QueryHandler(ListAllHosts)
export class ListAllHostsHandler implements IQueryHandler<ListAllHosts> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller }: ListAllHosts): Promise<HostView[]> {
    return this.queries.hosts(caller);
  }
}

@QueryHandler(ListHosts)
export class ListHostsHandler implements IQueryHandler<ListHosts> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller, page, at }: ListHosts): Promise<Page<HostView>> {
    return queriesAt(this.queries, at).hostPage(caller, page);
  }
}

@QueryHandler(GetHost)
export class GetHostHandler implements IQueryHandler<GetHost> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller, hostId, at }: GetHost): Promise<HostView> {
    return queriesAt(this.queries, at).host(caller, hostId);
  }
}

@QueryHandler(ListHostAllocations)
export class ListHostAllocationsHandler implements IQueryHandler<ListHostAllocations> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller, filter, now, page, at }: ListHostAllocations): Promise<Page<HostAllocationView>> {
    return queriesAt(this.queries, at).hostAllocationPage(caller, filter, now, page);
  }
}

@QueryHandler(GetHostAllocation)
export class GetHostAllocationHandler implements IQueryHandler<GetHostAllocation> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller, hostId, filter, now }: GetHostAllocation): Promise<HostAllocationView> {
    return this.queries.hostAllocation(caller, hostId, filter, now);
  }
}

@QueryHandler(ListProperties)
export class ListPropertiesHandler implements IQueryHandler<ListProperties> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller, options }: ListProperties): Promise<PropertyListing[]> {
    return this.queries.properties(caller, options);
  }
}

@QueryHandler(GetProperty)
export class GetPropertyHandler implements IQueryHandler<GetProperty> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ name }: GetProperty): Promise<PropertyRow> {
    return this.queries.property(name);
  }
}

export const HOST_HANDLERS = [
  RegisterHostHandler,
  UpdateHostHandler,
  UnregisterHostHandler,
  SetPropertyPrivacyHandler,
  ListAllHostsHandler,
  ListHostsHandler,
  GetHostHandler,
  ListHostAllocationsHandler,
  GetHostAllocationHandler,
  ListPropertiesHandler,
  GetPropertyHandler,
];
