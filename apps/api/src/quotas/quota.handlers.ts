import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#application/caller.js';
import type { ProjectQuota } from '#application/quotas/quotas.js';
import { type QuotaWritten, QuotaUseCases, type SetQuota as SetQuotaCommand } from '#application/quotas/quota.use-cases.js';
import { BusCommand } from '../bus/bus-command.js';

export class SetQuota extends BusCommand<SetQuotaCommand, QuotaWritten> {
  readonly type = 'SetQuota';
}

/** A project's quotas with what it holds at `now`. */
export class GetQuota extends Query<ProjectQuota> {
  constructor(
    readonly caller: Caller,
    readonly projectId: string,
    readonly now: string,
  ) {
    super();
  }
}

@CommandHandler(SetQuota)
export class SetQuotaHandler implements ICommandHandler<SetQuota> {
  constructor(@Inject(QuotaUseCases) private readonly quotas: QuotaUseCases) {}

  execute(command: SetQuota): Promise<QuotaWritten> {
    return this.quotas.set(command);
  }
}

@QueryHandler(GetQuota)
export class GetQuotaHandler implements IQueryHandler<GetQuota> {
  constructor(@Inject(QuotaUseCases) private readonly quotas: QuotaUseCases) {}

  execute({ caller, projectId, now }: GetQuota): Promise<ProjectQuota> {
    return this.quotas.show(caller, projectId, now);
  }
}

export const QUOTA_HANDLERS = [SetQuotaHandler, GetQuotaHandler];
