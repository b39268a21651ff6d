import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#application/caller.js';
import { FairShareQueries } from '#application/fair-share/fair-share.queries.js';
import {
  FairShareUseCases,
  type ResetFairShare as ResetFairShareCommand,
  type SetFairShare as SetFairShareCommand,
} from '#application/fair-share/fair-share.use-cases.js';
import { BusCommand } from '../bus/bus-command.js';

export class SetFairShare extends BusCommand<SetFairShareCommand, { readonly position: number }> {
  readonly type = 'SetFairShare';
}

export class ResetFairShare extends BusCommand<ResetFairShareCommand, { readonly position: number }> {
  readonly type = 'ResetFairShare';
}

/** Every project's standing at `now`. */
export class ListFairShare extends Query<{ fair_share: object }> {
  constructor(
    readonly caller: Caller,
    readonly now: string,
  ) {
    super();
  }
}

/** One project's standing at `now`. */
export class GetFairShare extends Query<{ fair_share: object }> {
  constructor(
    readonly caller: Caller,
    readonly projectId: string,
    readonly now: string,
  ) {
    super();
  }
}

@CommandHandler(SetFairShare)
export class SetFairShareHandler implements ICommandHandler<SetFairShare> {
  constructor(@Inject(FairShareUseCases) private readonly fairShare: FairShareUseCases) {}

  execute(command: SetFairShare): Promise<{ readonly position: number }> {
    return this.fairShare.set(command);
  }
}

@CommandHandler(ResetFairShare)
export class ResetFairShareHandler implements ICommandHandler<ResetFairShare> {
  constructor(@Inject(FairShareUseCases) private readonly fairShare: FairShareUseCases) {}

  execute(command: ResetFairShare): Promise<{ readonly position: number }> {
    return this.fairShare.reset(command);
  }
}

@QueryHandler(ListFairShare)
export class ListFairShareHandler implements IQueryHandler<ListFairShare> {
  constructor(@Inject(FairShareQueries) private readonly fairShare: FairShareQueries) {}

  execute({ caller, now }: ListFairShare): Promise<{ fair_share: object }> {
    return this.fairShare.list(caller, now);
  }
}

@QueryHandler(GetFairShare)
export class GetFairShareHandler implements IQueryHandler<GetFairShare> {
  constructor(@Inject(FairShareQueries) private readonly fairShare: FairShareQueries) {}

  execute({ caller, projectId, now }: GetFairShare): Promise<{ fair_share: object }> {
    return this.fairShare.show(caller, projectId, now);
  }
}

export const FAIR_SHARE_HANDLERS = [SetFairShareHandler, ResetFairShareHandler, ListFairShareHandler, GetFairShareHandler];
