import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#application/caller.js';
import {
  type PublishRateCard as PublishRateCardCommand,
  type RateCardPublication,
  RateCardUseCases,
} from '#application/usage/rate-card.use-cases.js';
import { UsageQueries, type UsageRequest } from '#application/usage/usage.queries.js';
import { BusCommand } from '../bus/bus-command.js';

export class PublishRateCard extends BusCommand<PublishRateCardCommand, RateCardPublication> {
  readonly type = 'PublishRateCard';
}

/** The project a report would cover (null: every project), or the policy's 403: asked before the request is parsed. */
export class GetUsageScope extends Query<string | null> {
  constructor(
    readonly caller: Caller,
    readonly projectId: string | null,
  ) {
    super();
  }
}

export class GetUsageReport extends Query<{ usage: object }> {
  constructor(
    readonly caller: Caller,
    readonly request: UsageRequest,
  ) {
    super();
  }
}

export class ListRateCards extends Query<{ rate_cards: object[] }> {
  constructor(readonly caller: Caller) {
    super();
  }
}

export class GetRateCard extends Query<{ rate_card: object; versions: object[] }> {
  constructor(
    readonly caller: Caller,
    readonly name: string,
  ) {
    super();
  }
}

@CommandHandler(PublishRateCard)
export class PublishRateCardHandler implements ICommandHandler<PublishRateCard> {
  constructor(@Inject(RateCardUseCases) private readonly rateCards: RateCardUseCases) {}

  execute(command: PublishRateCard): Promise<RateCardPublication> {
    return this.rateCards.publish(command);
  }
}

@QueryHandler(GetUsageScope)
export class GetUsageScopeHandler implements IQueryHandler<GetUsageScope> {
  constructor(@Inject(UsageQueries) private readonly usage: UsageQueries) {}

  async execute({ caller, projectId }: GetUsageScope): Promise<string | null> {
    return this.usage.projectScope(caller, projectId);
  }
}

@QueryHandler(GetUsageReport)
export class GetUsageReportHandler implements IQueryHandler<GetUsageReport> {
  constructor(@Inject(UsageQueries) private readonly usage: UsageQueries) {}

  execute({ caller, request }: GetUsageReport): Promise<{ usage: object }> {
    return this.usage.report(caller, request);
  }
}

@QueryHandler(ListRateCards)
export class ListRateCardsHandler implements IQueryHandler<ListRateCards> {
  constructor(@Inject(UsageQueries) private readonly usage: UsageQueries) {}

  execute({ caller }: ListRateCards): Promise<{ rate_cards: object[] }> {
    return this.usage.rateCards(caller);
  }
}

@QueryHandler(GetRateCard)
export class GetRateCardHandler implements IQueryHandler<GetRateCard> {
  constructor(@Inject(UsageQueries) private readonly usage: UsageQueries) {}

  execute({ caller, name }: GetRateCard): Promise<{ rate_card: object; versions: object[] }> {
    return this.usage.rateCard(caller, name);
  }
}

export const USAGE_HANDLERS = [
  PublishRateCardHandler,
  GetUsageScopeHandler,
  GetUsageReportHandler,
  ListRateCardsHandler,
  GetRateCardHandler,
];
