import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { KnownParameters } from '../http/known-parameters.guard.js';
import type { Request, Response } from '../http/exchange.js';
import { type FlavorView, toFlavorView } from '#read-model/index.js';
import { authorizedRequest } from '../policy/authorize.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { ReadsFrom } from '../read-side/read-your-writes.interceptor.js';
import { FLAVOR_POLICY } from '#application/flavors/flavor.use-cases.js';
import { callerOf, commandMetadata } from '../http/request-context.js';
import { CLOCK } from '../tokens.js';
import { parseCreateFlavor } from './flavor-request.parser.js';
import { AddFlavor, GetFlavor, ListFlavors, RemoveFlavor } from './flavor.handlers.js';

/**
 * The standalone flavor catalog (a Leasehold extension: upstream reads Nova's), Nova-shaped so that
 * `flavor:instance` reservations can name a flavor without an OpenStack cloud.
 */
@Controller('v1/flavors')
@UseGuards(KnownParameters)
export class FlavorController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  /** Admins see every flavor, others the public ones (Nova without flavor access lists). */
  @Get()
  @ReadsFrom('flavors')
  async list(@Req() request: Request): Promise<{ flavors: FlavorView[] }> {
    return { flavors: await this.queries.execute(new ListFlavors(callerOf(request))) };
  }

  @Post()
  @HttpCode(201)
  async create(
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ flavor: FlavorView }> {
    authorizedRequest(request, FLAVOR_POLICY.add);
    const result = await this.commands.execute(new AddFlavor({ flavor: parseCreateFlavor(body) }, commandMetadata(request, this.clock())));
    this.consistency.answerWrite(result.position, response);
    return { flavor: toFlavorView(result.flavor) };
  }

  @Get(':flavorId')
  @ReadsFrom('flavors')
  async show(@Param('flavorId') flavorId: string, @Req() request: Request): Promise<{ flavor: FlavorView }> {
    return { flavor: await this.queries.execute(new GetFlavor(callerOf(request), flavorId)) };
  }

  @Delete(':flavorId')
  @HttpCode(204)
  async remove(
    @Param('flavorId') flavorId: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const { position } = await this.commands.execute(new RemoveFlavor({ flavorId }, commandMetadata(request, this.clock())));
    this.consistency.answerWrite(position, response);
  }
}
