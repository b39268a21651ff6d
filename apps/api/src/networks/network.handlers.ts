import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { AllocationFilter, NetworkAllocationView, NetworkPropertyRow, ResourceDocument } from '#read-model/index.js';
import type { Caller } from '#application/caller.js';
import type { Handled } from '#application/command-handler.js';
import type { HistoryEntry } from '#application/history/history-entry.js';
import { NetworkQueries } from '#application/networks/network.queries.js';
import {
  type NetworkChanged,
  NetworkUseCases,
  type RegisterNetwork as RegisterNetworkCommand,
  type SetNetworkPropertyPrivacy as SetNetworkPropertyPrivacyCommand,
  type UnregisterNetwork as UnregisterNetworkCommand,
  type UpdateNetwork as UpdateNetworkCommand,
} from '#application/networks/network.use-cases.js';
import type { PropertyListing } from '#application/queries/read.queries.js';
import { BusCommand } from '../bus/bus-command.js';
import type { ReadPosition } from '../read-side/read-position.js';

export class RegisterNetwork extends BusCommand<RegisterNetworkCommand, NetworkChanged> {
  readonly type = 'RegisterNetwork';
}

export class UpdateNetwork extends BusCommand<UpdateNetworkCommand, NetworkChanged> {
  readonly type = 'UpdateNetwork';
}

export class UnregisterNetwork extends BusCommand<UnregisterNetworkCommand, Handled<null>> {
  readonly type = 'UnregisterNetwork';
}

export class SetNetworkPropertyPrivacy extends BusCommand<SetNetworkPropertyPrivacyCommand, Handled<null>> {
  readonly type = 'SetNetworkPropertyPrivacy';
}

export class ListNetworks extends Query<ResourceDocument[]> {
  constructor(
    readonly caller: Caller,
    readonly at: ReadPosition,
  ) {
    super();
  }
}

export class GetNetwork extends Query<ResourceDocument> {
  constructor(
    readonly caller: Caller,
    readonly networkId: string,
    readonly at: ReadPosition,
  ) {
    super();
  }
}

/** Every segment's allocations; without a filter only those of leases not ended at `now`. */
export class ListNetworkAllocations extends Query<NetworkAllocationView[]> {
  constructor(
    readonly caller: Caller,
    readonly filter: AllocationFilter,
    readonly now: string,
    readonly at: ReadPosition,
  ) {
    super();
  }
}

export class GetNetworkAllocation extends Query<NetworkAllocationView> {
  constructor(
    readonly caller: Caller,
    readonly networkId: string,
    readonly filter: AllocationFilter,
    readonly now: string,
  ) {
    super();
  }
}

export class ListNetworkProperties extends Query<PropertyListing[]> {
  constructor(
    readonly caller: Caller,
    readonly options: { readonly detail: boolean; readonly all: boolean },
  ) {
    super();
  }
}

/** One capability's privacy row, as a PATCH just set it. */
export class GetNetworkProperty extends Query<NetworkPropertyRow> {
  constructor(readonly name: string) {
    super();
  }
}

export class GetNetworkHistory extends Query<HistoryEntry[]> {
  constructor(
    readonly caller: Caller,
    readonly networkId: string,
  ) {
    super();
  }
}

const queriesAt = (queries: NetworkQueries, at: ReadPosition): NetworkQueries => (at === null ? queries : queries.asOf(at.position));

@CommandHandler(RegisterNetwork)
export class RegisterNetworkHandler implements ICommandHandler<RegisterNetwork> {
  constructor(@Inject(NetworkUseCases) private readonly networks: NetworkUseCases) {}

  execute(command: RegisterNetwork): Promise<NetworkChanged> {
    return this.networks.register(command);
  }
}

@CommandHandler(UpdateNetwork)
export class UpdateNetworkHandler implements ICommandHandler<UpdateNetwork> {
  constructor(@Inject(NetworkUseCases) private readonly networks: NetworkUseCases) {}

  execute(command: UpdateNetwork): Promise<NetworkChanged> {
    return this.networks.update(command);
  }
}

@CommandHandler(UnregisterNetwork)
export class UnregisterNetworkHandler implements ICommandHandler<UnregisterNetwork> {
  constructor(@Inject(NetworkUseCases) private readonly networks: NetworkUseCases) {}

  execute(command: UnregisterNetwork): Promise<Handled<null>> {
    return this.networks.unregister(command);
  }
}

@CommandHandler(SetNetworkPropertyPrivacy)
export class SetNetworkPropertyPrivacyHandler implements ICommandHandler<SetNetworkPropertyPrivacy> {
  constructor(@Inject(NetworkUseCases) private readonly networks: NetworkUseCases) {}

  execute(command: SetNetworkPropertyPrivacy): Promise<Handled<null>> {
    return this.networks.setPropertyPrivacy(command);
  }
}

@QueryHandler(ListNetworks)
export class ListNetworksHandler implements IQueryHandler<ListNetworks> {
  constructor(@Inject(NetworkQueries) private readonly queries: NetworkQueries) {}

  execute({ caller, at }: ListNetworks): Promise<ResourceDocument[]> {
    return queriesAt(this.queries, at).networks(caller);
  }
}

@QueryHandler(GetNetwork)
export class GetNetworkHandler implements IQueryHandler<GetNetwork> {
  constructor(@Inject(NetworkQueries) private readonly queries: NetworkQueries) {}

  execute({ caller, networkId, at }: GetNetwork): Promise<ResourceDocument> {
    return queriesAt(this.queries, at).network(caller, networkId);
  }
}

@QueryHandler(ListNetworkAllocations)
export class ListNetworkAllocationsHandler implements IQueryHandler<ListNetworkAllocations> {
  constructor(@Inject(NetworkQueries) private readonly queries: NetworkQueries) {}

  execute({ caller, filter, now, at }: ListNetworkAllocations): Promise<NetworkAllocationView[]> {
    return queriesAt(this.queries, at).allocations(caller, filter, now);
  }
}

@QueryHandler(GetNetworkAllocation)
export class GetNetworkAllocationHandler implements IQueryHandler<GetNetworkAllocation> {
  constructor(@Inject(NetworkQueries) private readonly queries: NetworkQueries) {}

  execute({ caller, networkId, filter, now }: GetNetworkAllocation): Promise<NetworkAllocationView> {
    return this.queries.allocation(caller, networkId, filter, now);
  }
}

@QueryHandler(ListNetworkProperties)
export class ListNetworkPropertiesHandler implements IQueryHandler<ListNetworkProperties> {
  constructor(@Inject(NetworkQueries) private readonly queries: NetworkQueries) {}

  execute({ caller, options }: ListNetworkProperties): Promise<PropertyListing[]> {
    return this.queries.properties(caller, options);
  }
}

@QueryHandler(GetNetworkProperty)
export class GetNetworkPropertyHandler implements IQueryHandler<GetNetworkProperty> {
  constructor(@Inject(NetworkQueries) private readonly queries: NetworkQueries) {}

  execute({ name }: GetNetworkProperty): Promise<NetworkPropertyRow> {
    return this.queries.property(name);
  }
}

@QueryHandler(GetNetworkHistory)
export class GetNetworkHistoryHandler implements IQueryHandler<GetNetworkHistory> {
  constructor(@Inject(NetworkQueries) private readonly queries: NetworkQueries) {}

  execute({ caller, networkId }: GetNetworkHistory): Promise<HistoryEntry[]> {
    return this.queries.networkHistory(caller, networkId);
  }
}

export const NETWORK_HANDLERS = [
  RegisterNetworkHandler,
  UpdateNetworkHandler,
  UnregisterNetworkHandler,
  SetNetworkPropertyPrivacyHandler,
  ListNetworksHandler,
  GetNetworkHandler,
  ListNetworkAllocationsHandler,
  GetNetworkAllocationHandler,
  ListNetworkPropertiesHandler,
  GetNetworkPropertyHandler,
  GetNetworkHistoryHandler,
];
