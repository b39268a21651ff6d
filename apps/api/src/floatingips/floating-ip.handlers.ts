import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { AllocationFilter, FloatingIpAllocationView, FloatingIpView } from '#read-model/index.js';
import type { Caller } from '#application/caller.js';
import type { Handled } from '#application/command-handler.js';
import {
  type FloatingIpRegistered,
  FloatingIpUseCases,
  type RegisterFloatingIp as RegisterFloatingIpCommand,
  type UnregisterFloatingIp as UnregisterFloatingIpCommand,
} from '#application/floating-ips/floating-ip.use-cases.js';
import type { Page, PageRequest } from '#application/queries/pagination.js';
import { ReadQueries } from '#application/queries/read.queries.js';
import { BusCommand } from '../bus/bus-command.js';
import { type ReadPosition, queriesAt } from '../read-side/read-position.js';

export class RegisterFloatingIp extends BusCommand<RegisterFloatingIpCommand, FloatingIpRegistered> {
  readonly type = 'RegisterFloatingIp';
}

export class UnregisterFloatingIp extends BusCommand<UnregisterFloatingIpCommand, Handled<null>> {
  readonly type = 'UnregisterFloatingIp';
}

/** Every floating IP (GraphQL's list). */
export class ListAllFloatingIps extends Query<FloatingIpView[]> {
  constructor(readonly caller: Caller) {
    super();
  }
}

export class ListFloatingIps extends Query<Page<FloatingIpView>> {
  constructor(
    readonly caller: Caller,
    readonly page: PageRequest | null,
    readonly at: ReadPosition,
  ) {
    super();
  }
}

export class GetFloatingIp extends Query<FloatingIpView> {
  constructor(
    readonly caller: Caller,
    readonly floatingIpId: string,
    readonly at: ReadPosition,
  ) {
    super();
  }
}

/** Every address's allocations; without a filter only those of leases not ended at `now`. */
export class ListFloatingIpAllocations extends Query<FloatingIpAllocationView[]> {
  constructor(
    readonly caller: Caller,
    readonly filter: AllocationFilter,
    readonly now: string,
    readonly at: ReadPosition,
  ) {
    super();
  }
}

export class GetFloatingIpAllocation extends Query<FloatingIpAllocationView> {
  constructor(
    readonly caller: Caller,
    readonly floatingIpId: string,
    readonly filter: AllocationFilter,
    readonly now: string,
  ) {
    super();
  }
}

@CommandHandler(RegisterFloatingIp)
export class RegisterFloatingIpHandler implements ICommandHandler<RegisterFloatingIp> {
  constructor(@Inject(FloatingIpUseCases) private readonly floatingIps: FloatingIpUseCases) {}

  execute(command: RegisterFloatingIp): Promise<FloatingIpRegistered> {
    return this.floatingIps.register(command);
  }
}

@CommandHandler(UnregisterFloatingIp)
export class UnregisterFloatingIpHandler implements ICommandHandler<UnregisterFloatingIp> {
  constructor(@Inject(FloatingIpUseCases) private readonly floatingIps: FloatingIpUseCases) {}

  execute(command: UnregisterFloatingIp): Promise<Handled<null>> {
    return this.floatingIps.unregister(command);
  }
}

@QueryHandler(ListAllFloatingIps)
export class ListAllFloatingIpsHandler implements IQueryHandler<ListAllFloatingIps> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller }: ListAllFloatingIps): Promise<FloatingIpView[]> {
    return this.queries.floatingIps(caller);
  }
}

@QueryHandler(ListFloatingIps)
export class ListFloatingIpsHandler implements IQueryHandler<ListFloatingIps> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller, page, at }: ListFloatingIps): Promise<Page<FloatingIpView>> {
    return queriesAt(this.queries, at).floatingIpPage(caller, page);
  }
}

@QueryHandler(GetFloatingIp)
export class GetFloatingIpHandler implements IQueryHandler<GetFloatingIp> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller, floatingIpId, at }: GetFloatingIp): Promise<FloatingIpView> {
    return queriesAt(this.queries, at).floatingIp(caller, floatingIpId);
  }
}

@QueryHandler(ListFloatingIpAllocations)
export class ListFloatingIpAllocationsHandler implements IQueryHandler<ListFloatingIpAllocations> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller, filter, now, at }: ListFloatingIpAllocations): Promise<FloatingIpAllocationView[]> {
    return queriesAt(this.queries, at).floatingIpAllocations(caller, filter, now);
  }
}

@QueryHandler(GetFloatingIpAllocation)
export class GetFloatingIpAllocationHandler implements IQueryHandler<GetFloatingIpAllocation> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller, floatingIpId, filter, now }: GetFloatingIpAllocation): Promise<FloatingIpAllocationView> {
    return this.queries.floatingIpAllocation(caller, floatingIpId, filter, now);
  }
}

export const FLOATING_IP_HANDLERS = [
  RegisterFloatingIpHandler,
  UnregisterFloatingIpHandler,
  ListAllFloatingIpsHandler,
  ListFloatingIpsHandler,
  GetFloatingIpHandler,
  ListFloatingIpAllocationsHandler,
  GetFloatingIpAllocationHandler,
];
