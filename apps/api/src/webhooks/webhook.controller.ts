import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Request, Response } from '../http/exchange.js';
import type { DeliveryView } from '#application/webhooks/webhook-deliveries.store.js';
import type { WebhookView } from '#application/webhooks/webhook.use-cases.js';
import { ACTIONS } from '#application/policy/policy-defaults.js';
import { authorizedRequest } from '../policy/authorize.js';
import { callerOf, commandMetadata } from '../http/request-context.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { CLOCK } from '../tokens.js';
import { parseCreateWebhook } from './webhook-request.parser.js';
import { DeleteWebhook, GetWebhook, ListWebhookDeliveries, ListWebhooks, RegisterWebhook } from './webhook.handlers.js';

/** Deliveries shown per request, newest first. */
const DELIVERIES_SHOWN = 500;

/** Tenant webhooks (a Leasehold extension, docs/webhooks.md): registrations are read from the log itself, never stale. */
@Controller('v1/webhooks')
export class WebhookController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  @Get()
  async list(@Req() request: Request): Promise<{ webhooks: WebhookView[] }> {
    return { webhooks: await this.queries.execute(new ListWebhooks(callerOf(request))) };
  }

  @Post()
  @HttpCode(201)
  async create(
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ webhook: WebhookView }> {
    authorizedRequest(request, ACTIONS.webhookPost);
    const result = await this.commands.execute(
      new RegisterWebhook({ webhook: parseCreateWebhook(body) }, commandMetadata(request, this.clock())),
    );
    this.consistency.answerWrite(result.position, response);
    return { webhook: result.webhook };
  }

  @Get(':webhookId')
  async show(@Param('webhookId') webhookId: string, @Req() request: Request): Promise<{ webhook: WebhookView }> {
    return { webhook: await this.queries.execute(new GetWebhook(callerOf(request), webhookId)) };
  }

  @Delete(':webhookId')
  @HttpCode(204)
  async remove(
    @Param('webhookId') webhookId: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const { position } = await this.commands.execute(new DeleteWebhook({ webhookId }, commandMetadata(request, this.clock())));
    this.consistency.answerWrite(position, response);
  }

  @Get(':webhookId/deliveries')
  async deliveries(@Param('webhookId') webhookId: string, @Req() request: Request): Promise<{ deliveries: DeliveryView[] }> {
    return { deliveries: await this.queries.execute(new ListWebhookDeliveries(callerOf(request), webhookId, DELIVERIES_SHOWN)) };
  }
}
