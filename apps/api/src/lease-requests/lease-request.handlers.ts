import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#application/caller.js';
import {
  type LeaseRequestDetail,
  type LeaseRequestRecord,
  LeaseRequestUseCases,
  type LeaseRequestWritten,
  type SubmitLeaseRequestCommand,
  type WithdrawLeaseRequestCommand,
} from '#application/lease-requests/lease-request.use-cases.js';
import { BusCommand } from '../bus/bus-command.js';

export class SubmitLeaseRequest extends BusCommand<SubmitLeaseRequestCommand, LeaseRequestWritten> {
  readonly type = 'SubmitLeaseRequest';
}

/** Answers the log position of the withdrawal. */
export class WithdrawLeaseRequest extends BusCommand<WithdrawLeaseRequestCommand, number> {
  readonly type = 'WithdrawLeaseRequest';
}

export class ListLeaseRequests extends Query<LeaseRequestRecord[]> {
  constructor(readonly caller: Caller) {
    super();
  }
}

/** One request, with its predicted start as of `now` (ISO-8601 UTC). */
export class GetLeaseRequest extends Query<LeaseRequestDetail> {
  constructor(
    readonly caller: Caller,
    readonly requestId: string,
    readonly now: string,
  ) {
    super();
  }
}

@CommandHandler(SubmitLeaseRequest)
export class SubmitLeaseRequestHandler implements ICommandHandler<SubmitLeaseRequest> {
  constructor(@Inject(LeaseRequestUseCases) private readonly requests: LeaseRequestUseCases) {}

  execute(command: SubmitLeaseRequest): Promise<LeaseRequestWritten> {
    return this.requests.submit(command);
  }
}

@CommandHandler(WithdrawLeaseRequest)
export class WithdrawLeaseRequestHandler implements ICommandHandler<WithdrawLeaseRequest> {
  constructor(@Inject(LeaseRequestUseCases) private readonly requests: LeaseRequestUseCases) {}

  execute(command: WithdrawLeaseRequest): Promise<number> {
    return this.requests.withdraw(command);
  }
}

@QueryHandler(ListLeaseRequests)
export class ListLeaseRequestsHandler implements IQueryHandler<ListLeaseRequests> {
  constructor(@Inject(LeaseRequestUseCases) private readonly requests: LeaseRequestUseCases) {}

  execute({ caller }: ListLeaseRequests): Promise<LeaseRequestRecord[]> {
    return this.requests.list(caller);
  }
}

@QueryHandler(GetLeaseRequest)
export class GetLeaseRequestHandler implements IQueryHandler<GetLeaseRequest> {
  constructor(@Inject(LeaseRequestUseCases) private readonly requests: LeaseRequestUseCases) {}

  execute({ caller, requestId, now }: GetLeaseRequest): Promise<LeaseRequestDetail> {
    return this.requests.detail(caller, requestId, now);
  }
}

export const LEASE_REQUEST_HANDLERS = [
  SubmitLeaseRequestHandler,
  WithdrawLeaseRequestHandler,
  ListLeaseRequestsHandler,
  GetLeaseRequestHandler,
];
