import { Command } from '@nestjs/cqrs';
import type { RequestContext } from '../http/request-context.js';
import type { LeaseWriteResult } from '../write-side/lease-writer.js';
import type { CreateLeaseRequest, UpdateLeaseRequest } from '../write-side/lease-requests.js';

export class CreateLeaseCommand extends Command<LeaseWriteResult> {
  constructor(readonly request: CreateLeaseRequest, readonly context: RequestContext) {
    super();
  }
}

export class UpdateLeaseCommand extends Command<LeaseWriteResult> {
  constructor(readonly leaseId: string, readonly request: UpdateLeaseRequest, readonly context: RequestContext) {
    super();
  }
}

export class DeleteLeaseCommand extends Command<LeaseWriteResult> {
  constructor(readonly leaseId: string, readonly context: RequestContext) {
    super();
  }
}
