import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#application/caller.js';
import type { Handled } from '#application/command-handler.js';
import {
  type CancelHostMaintenance as CancelHostMaintenanceCommand,
  type HostMaintenanceWindow,
  HostMaintenanceUseCases,
  type ScheduleHostMaintenance as ScheduleHostMaintenanceCommand,
} from '#application/hosts/host-maintenance.use-cases.js';
import { BusCommand } from '../bus/bus-command.js';

export class ScheduleHostMaintenance extends BusCommand<ScheduleHostMaintenanceCommand, Handled<HostMaintenanceWindow>> {
  readonly type = 'ScheduleHostMaintenance';
}

export class CancelHostMaintenance extends BusCommand<CancelHostMaintenanceCommand, Handled<null>> {
  readonly type = 'CancelHostMaintenance';
}

/** One host's maintenance windows, or (hostId null) every host's. */
export class ListHostMaintenance extends Query<HostMaintenanceWindow[]> {
  constructor(
    readonly caller: Caller,
    readonly hostId: string | null,
  ) {
    super();
  }
}

@CommandHandler(ScheduleHostMaintenance)
export class ScheduleHostMaintenanceHandler implements ICommandHandler<ScheduleHostMaintenance> {
  constructor(@Inject(HostMaintenanceUseCases) private readonly maintenance: HostMaintenanceUseCases) {}

  execute(command: ScheduleHostMaintenance): Promise<Handled<HostMaintenanceWindow>> {
    return this.maintenance.schedule(command);
  }
}

@CommandHandler(CancelHostMaintenance)
export class CancelHostMaintenanceHandler implements ICommandHandler<CancelHostMaintenance> {
  constructor(@Inject(HostMaintenanceUseCases) private readonly maintenance: HostMaintenanceUseCases) {}

  execute(command: CancelHostMaintenance): Promise<Handled<null>> {
    return this.maintenance.cancel(command);
  }
}

@QueryHandler(ListHostMaintenance)
export class ListHostMaintenanceHandler implements IQueryHandler<ListHostMaintenance> {
  constructor(@Inject(HostMaintenanceUseCases) private readonly maintenance: HostMaintenanceUseCases) {}

  execute({ caller, hostId }: ListHostMaintenance): Promise<HostMaintenanceWindow[]> {
    return this.maintenance.list(caller, hostId);
  }
}

export const HOST_MAINTENANCE_HANDLERS = [ScheduleHostMaintenanceHandler, CancelHostMaintenanceHandler, ListHostMaintenanceHandler];
