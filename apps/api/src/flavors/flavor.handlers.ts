import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { FlavorView } from '#read-model/index.js';
import type { Caller } from '#application/caller.js';
import {
  type AddFlavor as AddFlavorCommand,
  type FlavorAdded,
  FlavorUseCases,
  type RemoveFlavor as RemoveFlavorCommand,
} from '#application/flavors/flavor.use-cases.js';
import { ReadQueries } from '#application/queries/read.queries.js';
import { BusCommand } from '../bus/bus-command.js';

export class AddFlavor extends BusCommand<AddFlavorCommand, FlavorAdded> {
  readonly type = 'AddFlavor';
}

export class RemoveFlavor extends BusCommand<RemoveFlavorCommand, { readonly position: number }> {
  readonly type = 'RemoveFlavor';
}

export class ListFlavors extends Query<FlavorView[]> {
  constructor(readonly caller: Caller) {
    super();
  }
}

export class GetFlavor extends Query<FlavorView> {
  constructor(
    readonly caller: Caller,
    readonly flavorId: string,
  ) {
    super();
  }
}

@CommandHandler(AddFlavor)
export class AddFlavorHandler implements ICommandHandler<AddFlavor> {
  constructor(@Inject(FlavorUseCases) private readonly flavors: FlavorUseCases) {}

  execute(command: AddFlavor): Promise<FlavorAdded> {
    return this.flavors.add(command);
  }
}

@CommandHandler(RemoveFlavor)
export class RemoveFlavorHandler implements ICommandHandler<RemoveFlavor> {
  constructor(@Inject(FlavorUseCases) private readonly flavors: FlavorUseCases) {}

  execute(command: RemoveFlavor): Promise<{ readonly position: number }> {
    return this.flavors.remove(command);
  }
}

@QueryHandler(ListFlavors)
export class ListFlavorsHandler implements IQueryHandler<ListFlavors> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller }: ListFlavors): Promise<FlavorView[]> {
    return this.queries.flavors(caller);
  }
}

@QueryHandler(GetFlavor)
export class GetFlavorHandler implements IQueryHandler<GetFlavor> {
  constructor(@Inject(ReadQueries) private readonly queries: ReadQueries) {}

  execute({ caller, flavorId }: GetFlavor): Promise<FlavorView> {
    return this.queries.flavor(caller, flavorId);
  }
}

export const FLAVOR_HANDLERS = [AddFlavorHandler, RemoveFlavorHandler, ListFlavorsHandler, GetFlavorHandler];
