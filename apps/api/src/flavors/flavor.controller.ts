import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { KnownParameters } from '../http/known-parameters.guard.js';
import type { Request, Response } from 'express';
import { type FlavorView, toFlavorView } from '#read-model/index.js';
import { authorizedRequest } from '../policy/authorize.js';
import { ReadQueries } from '#application/queries/read.queries.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { ReadsFrom } from '../read-side/read-your-writes.interceptor.js';
import { FLAVOR_POLICY, FlavorUseCases } from '#application/flavors/flavor.use-cases.js';
import { callerOf, commandMetadata } from '../http/request-context.js';
import { CLOCK } from '../tokens.js';
import { parseCreateFlavor } from './flavor-request.parser.js';

/**
 * The standalone flavor catalog (a Leasehold extension: upstream reads Nova's), Nova-shaped so that
 * `flavor:instance` reservations can name a flavor without an OpenStack cloud.
 */
@Controller('v1/flavors')
@UseGuards(KnownParameters)
export class FlavorController {
  constructor(
    @Inject(FlavorUseCases) private readonly flavors: FlavorUseCases,
    @Inject(ReadQueries) private readonly queries: ReadQueries,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  /** Admins see every flavor, others the public ones (Nova without flavor access lists). */
  @Get()
  @ReadsFrom('flavors')
  async list(@Req() request: Request): Promise<{ flavors: FlavorView[] }> {
    return { flavors: await this.queries.flavors(callerOf(request)) };
  }

  @Post()
  @HttpCode(201)
  async create(
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ flavor: FlavorView }> {
    authorizedRequest(request, FLAVOR_POLICY.add);
    const result = await this.flavors.add({
      type: 'AddFlavor',
      data: { flavor: parseCreateFlavor(body) },
      metadata: commandMetadata(request, this.clock()),
    });
    this.consistency.answerWrite(result.position, response);
    return { flavor: toFlavorView(result.flavor) };
  }

  @Get(':flavorId')
  @ReadsFrom('flavors')
  async show(@Param('flavorId') flavorId: string, @Req() request: Request): Promise<{ flavor: FlavorView }> {
    return { flavor: await this.queries.flavor(callerOf(request), flavorId) };
  }

  @Delete(':flavorId')
  @HttpCode(204)
  async remove(
    @Param('flavorId') flavorId: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const { position } = await this.flavors.remove({
      type: 'RemoveFlavor',
      data: { flavorId },
      metadata: commandMetadata(request, this.clock()),
    });
    this.consistency.answerWrite(position, response);
  }
}
