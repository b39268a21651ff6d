import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { LeaseWriter, type LeaseWriteResult } from '../write-side/lease-writer.js';
import { CreateLeaseCommand, DeleteLeaseCommand, UpdateLeaseCommand } from './lease.commands.js';

@CommandHandler(CreateLeaseCommand)
export class CreateLeaseHandler implements ICommandHandler<CreateLeaseCommand, LeaseWriteResult> {
  constructor(@Inject(LeaseWriter) private readonly writer: LeaseWriter) {}

  execute(command: CreateLeaseCommand): Promise<LeaseWriteResult> {
    return this.writer.create(command.request, command.context);
  }
}

@CommandHandler(UpdateLeaseCommand)
export class UpdateLeaseHandler implements ICommandHandler<UpdateLeaseCommand, LeaseWriteResult> {
  constructor(@Inject(LeaseWriter) private readonly writer: LeaseWriter) {}

  execute(command: UpdateLeaseCommand): Promise<LeaseWriteResult> {
    return this.writer.update(command.leaseId, command.request, command.context);
  }
}

@CommandHandler(DeleteLeaseCommand)
export class DeleteLeaseHandler implements ICommandHandler<DeleteLeaseCommand, LeaseWriteResult> {
  constructor(@Inject(LeaseWriter) private readonly writer: LeaseWriter) {}

  execute(command: DeleteLeaseCommand): Promise<LeaseWriteResult> {
    return this.writer.delete(command.leaseId, command.context);
  }
}
