import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { MAINTENANCE_POLICY } from '#application/hosts/host-maintenance.use-cases.js';
import type { Request, Response } from '../http/exchange.js';
import { callerOf, commandMetadata, instantOf } from '../http/request-context.js';
import { authorizedRequest } from '../policy/authorize.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { CLOCK } from '../tokens.js';
import { CancelHostMaintenance, ListHostMaintenance, ScheduleHostMaintenance } from './host-maintenance.handlers.js';
import { parseScheduleMaintenance } from './host-maintenance.parser.js';
import { type MaintenanceWindowView, maintenanceWindowView } from './host-maintenance.view.js';

/** Maintenance windows on hosts (a Leasehold extension, docs/maintenance.md); answered from the write side. */
@Controller('v1/os-hosts')
export class HostMaintenanceController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  @Get('maintenance')
  async listAll(@Req() request: Request): Promise<{ maintenance_windows: MaintenanceWindowView[] }> {
    const windows = await this.queries.execute(new ListHostMaintenance(callerOf(request), null));
    return { maintenance_windows: windows.map(maintenanceWindowView) };
  }

  @Get(':hostId/maintenance')
  async list(@Param('hostId') hostId: string, @Req() request: Request): Promise<{ maintenance_windows: MaintenanceWindowView[] }> {
    const windows = await this.queries.execute(new ListHostMaintenance(callerOf(request), hostId));
    return { maintenance_windows: windows.map(maintenanceWindowView) };
  }

  @Post(':hostId/maintenance')
  @HttpCode(201)
  async schedule(
    @Param('hostId') hostId: string,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ maintenance_window: MaintenanceWindowView }> {
    authorizedRequest(request, MAINTENANCE_POLICY.schedule);
    const metadata = commandMetadata(request, this.clock());
    const window = parseScheduleMaintenance(body, instantOf(metadata));
    const { result, position } = await this.commands.execute(new ScheduleHostMaintenance({ hostId, window }, metadata));
    this.consistency.answerWrite(position, response);
    return { maintenance_window: maintenanceWindowView(result) };
  }

  @Delete(':hostId/maintenance/:windowId')
  @HttpCode(204)
  async cancel(
    @Param('hostId') hostId: string,
    @Param('windowId') windowId: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const { position } = await this.commands.execute(
      new CancelHostMaintenance({ hostId, windowId }, commandMetadata(request, this.clock())),
    );
    this.consistency.answerWrite(position, response);
  }
}
