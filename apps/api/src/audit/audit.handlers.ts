import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#application/caller.js';
import { type AuditFilter, WriteRefusals } from '#application/audit/write-refusals.js';
import type { HistoryEntry } from '#application/history/history-entry.js';

/** The refused writes the audit log recorded in a window. */
export class ListRefusals extends Query<HistoryEntry[]> {
  constructor(
    readonly caller: Caller,
    readonly filter: AuditFilter,
  ) {
    super();
  }
}

@QueryHandler(ListRefusals)
export class ListRefusalsHandler implements IQueryHandler<ListRefusals> {
  constructor(@Inject(WriteRefusals) private readonly refusals: WriteRefusals) {}

  execute({ caller, filter }: ListRefusals): Promise<HistoryEntry[]> {
    return this.refusals.list(caller, filter);
  }
}

export const AUDIT_HANDLERS = [ListRefusalsHandler];
