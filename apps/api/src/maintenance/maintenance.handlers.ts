import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#application/caller.js';
import type { Handled } from '#application/command-handler.js';
import {
  type CancelMaintenance as CancelMaintenanceCommand,
  MaintenanceUseCases,
  type ResourceMaintenanceWindow,
  type ScheduleMaintenance as ScheduleMaintenanceCommand,
} from '#application/maintenance/maintenance.use-cases.js';
import { BusCommand } from '../bus/bus-command.js';

export class ScheduleMaintenance extends BusCommand<ScheduleMaintenanceCommand, Handled<ResourceMaintenanceWindow>> {
  readonly type = 'ScheduleMaintenance';
}

export class CancelMaintenance extends BusCommand<CancelMaintenanceCommand, Handled<null>> {
  readonly type = 'CancelMaintenance';
}

/** One resource's maintenance windows, or (resourceId null) every one's of the kind. */
export class ListMaintenance extends Query<ResourceMaintenanceWindow[]> {
  constructor(
    readonly caller: Caller,
    readonly kind: string,
    readonly resourceId: string | null,
  ) {
    super();
  }
}

@CommandHandler(ScheduleMaintenance)
export class ScheduleMaintenanceHandler implements ICommandHandler<ScheduleMaintenance> {
  constructor(@Inject(MaintenanceUseCases) private readonly maintenance: MaintenanceUseCases) {}

  execute(command: ScheduleMaintenance): Promise<Handled<ResourceMaintenanceWindow>> {
    return this.maintenance.schedule(command);
  }
}

@CommandHandler(CancelMaintenance)
export class CancelMaintenanceHandler implements ICommandHandler<CancelMaintenance> {
  constructor(@Inject(MaintenanceUseCases) private readonly maintenance: MaintenanceUseCases) {}

  execute(command: CancelMaintenance): Promise<Handled<null>> {
    return this.maintenance.cancel(command);
  }
}

@QueryHandler(ListMaintenance)
export class ListMaintenanceHandler implements IQueryHandler<ListMaintenance> {
  constructor(@Inject(MaintenanceUseCases) private readonly maintenance: MaintenanceUseCases) {}

  execute({ caller, kind, resourceId }: ListMaintenance): Promise<ResourceMaintenanceWindow[]> {
    return this.maintenance.list(caller, kind, resourceId);
  }
}

export const MAINTENANCE_HANDLERS = [ScheduleMaintenanceHandler, CancelMaintenanceHandler, ListMaintenanceHandler];
