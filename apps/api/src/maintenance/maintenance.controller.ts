import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, Res, type Type } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { type AnyMaintainedKind, MAINTAINED_KINDS } from '#application/maintenance/maintained-kinds.js';
import type { Request, Response } from '../http/exchange.js';
import { callerOf, commandMetadata, instantOf } from '../http/request-context.js';
import { authorizedRequest } from '../policy/authorize.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { CLOCK } from '../tokens.js';
import { CancelMaintenance, ListMaintenance, ScheduleMaintenance } from './maintenance.handlers.js';
import { parseScheduleMaintenance } from './maintenance.parser.js';
import { type MaintenanceWindowView, maintenanceWindowView } from './maintenance.view.js';

/**
 * A kind's maintenance routes (a Leasehold extension, docs/maintenance.md), made from its declaration:
 * `/v1/<route>/maintenance`, `/v1/<route>/{<idParam>}/maintenance[/{windowId}]`. Answered from the write side.
 */
export const maintenanceController = (kind: AnyMaintainedKind): Type => {
  const { idParam } = kind;

  @Controller(`v1/${kind.route}`)
  class MaintenanceController {
    constructor(
      @Inject(CommandBus) readonly commands: CommandBus,
      @Inject(QueryBus) readonly queries: QueryBus,
      @Inject(ReadYourWrites) readonly consistency: ReadYourWrites,
      @Inject(CLOCK) readonly clock: () => Date,
    ) {}

    @Get('maintenance')
    async listAll(@Req() request: Request): Promise<{ maintenance_windows: MaintenanceWindowView[] }> {
      return this.listed(request, null);
    }

    @Get(`:${idParam}/maintenance`)
    async list(@Param(idParam) id: string, @Req() request: Request): Promise<{ maintenance_windows: MaintenanceWindowView[] }> {
      return this.listed(request, id);
    }

    @Post(`:${idParam}/maintenance`)
    @HttpCode(201)
    async schedule(
      @Param(idParam) resourceId: string,
      @Body() body: unknown,
      @Req() request: Request,
      @Res({ passthrough: true }) response: Response,
    ): Promise<{ maintenance_window: MaintenanceWindowView }> {
      authorizedRequest(request, kind.policy.schedule);
      const metadata = commandMetadata(request, this.clock());
      const window = parseScheduleMaintenance(body, instantOf(metadata));
      const { result, position } = await this.commands.execute(new ScheduleMaintenance({ kind: kind.kind, resourceId, window }, metadata));
      this.consistency.answerWrite(position, response);
      return { maintenance_window: maintenanceWindowView(kind, result) };
    }

    @Delete(`:${idParam}/maintenance/:windowId`)
    @HttpCode(204)
    async cancel(
      @Param(idParam) resourceId: string,
      @Param('windowId') windowId: string,
      @Req() request: Request,
      @Res({ passthrough: true }) response: Response,
    ): Promise<void> {
      const { position } = await this.commands.execute(
        new CancelMaintenance({ kind: kind.kind, resourceId, windowId }, commandMetadata(request, this.clock())),
      );
      this.consistency.answerWrite(position, response);
    }

    private async listed(request: Request, resourceId: string | null): Promise<{ maintenance_windows: MaintenanceWindowView[] }> {
      const windows = await this.queries.execute(new ListMaintenance(callerOf(request), kind.kind, resourceId));
      return { maintenance_windows: windows.map((window) => maintenanceWindowView(kind, window)) };
    }
  }
  // Nest names a controller by its class (logs, the OpenAPI document's route reader)
  Object.defineProperty(MaintenanceController, 'name', { value: `${kind.title}MaintenanceController` });
  return MaintenanceController;
};

/** One controller per kind that takes maintenance windows. */
export const MAINTENANCE_CONTROLLERS: readonly Type[] = MAINTAINED_KINDS.map(maintenanceController);
