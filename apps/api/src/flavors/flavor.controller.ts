import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { type FlavorView, toFlavorView } from '../../../../libs/read-model/src/index.js';
import { flavorNotFound } from '../http/not-found.js';
import { authorizedRequest } from '../policy/authorize.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import { ReadModelQueries } from '../read-side/read-model.queries.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { ReadsFrom } from '../read-side/read-your-writes.interceptor.js';
import { FlavorWriter } from '../write-side/flavor-writer.js';
import { parseCreateFlavor } from './flavor-request.parser.js';

/**
 * The standalone flavor catalog (a Leasehold extension: upstream reads Nova's), Nova-shaped so that
 * `flavor:instance` reservations can name a flavor without an OpenStack cloud.
 */
@Controller('v1/flavors')
export class FlavorController {
  constructor(
    @Inject(FlavorWriter) private readonly writer: FlavorWriter,
    @Inject(ReadModelQueries) private readonly queries: ReadModelQueries,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
  ) {}

  /** Admins see every flavor, others the public ones (Nova without flavor access lists). */
  @Get()
  @ReadsFrom('flavors')
  async list(@Req() request: Request): Promise<{ flavors: FlavorView[] }> {
    const context = authorizedRequest(request, ACTIONS.flavorGet);
    return { flavors: await this.queries.flavors(context.isAdmin) };
  }

  @Post()
  @HttpCode(201)
  async create(@Body() body: unknown, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<{ flavor: FlavorView }> {
    const context = authorizedRequest(request, ACTIONS.flavorPost);
    const result = await this.writer.add(parseCreateFlavor(body), context);
    this.consistency.answerWrite(result.position, response);
    return { flavor: toFlavorView(result.flavor) };
  }

  @Get(':flavorId')
  @ReadsFrom('flavors')
  async show(@Param('flavorId') flavorId: string, @Req() request: Request): Promise<{ flavor: FlavorView }> {
    const context = authorizedRequest(request, ACTIONS.flavorGet);
    const found = await this.queries.flavor(flavorId);
    if (found === null || (!found.isPublic && !context.isAdmin)) throw flavorNotFound(flavorId);
    return { flavor: found.view };
  }

  @Delete(':flavorId')
  @HttpCode(204)
  async remove(@Param('flavorId') flavorId: string, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<void> {
    this.consistency.answerWrite(await this.writer.remove(flavorId, authorizedRequest(request, ACTIONS.flavorDelete)), response);
  }
}
