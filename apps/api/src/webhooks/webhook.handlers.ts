import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#application/caller.js';
import type { DeliveryView } from '#application/webhooks/webhook-deliveries.store.js';
import {
  type DeleteWebhook as DeleteWebhookCommand,
  type RegisterWebhook as RegisterWebhookCommand,
  WebhookUseCases,
  type WebhookView,
} from '#application/webhooks/webhook.use-cases.js';
import { BusCommand } from '../bus/bus-command.js';

export class RegisterWebhook extends BusCommand<RegisterWebhookCommand, { readonly webhook: WebhookView; readonly position: number }> {
  readonly type = 'RegisterWebhook';
}

export class DeleteWebhook extends BusCommand<DeleteWebhookCommand, { readonly position: number }> {
  readonly type = 'DeleteWebhook';
}

export class ListWebhooks extends Query<WebhookView[]> {
  constructor(readonly caller: Caller) {
    super();
  }
}

export class GetWebhook extends Query<WebhookView> {
  constructor(
    readonly caller: Caller,
    readonly webhookId: string,
  ) {
    super();
  }
}

/** A webhook's last `limit` deliveries, newest first. */
export class ListWebhookDeliveries extends Query<DeliveryView[]> {
  constructor(
    readonly caller: Caller,
    readonly webhookId: string,
    readonly limit: number,
  ) {
    super();
  }
}

@CommandHandler(RegisterWebhook)
export class RegisterWebhookHandler implements ICommandHandler<RegisterWebhook> {
  constructor(@Inject(WebhookUseCases) private readonly webhooks: WebhookUseCases) {}

  execute(command: RegisterWebhook): Promise<{ readonly webhook: WebhookView; readonly position: number }> {
    return this.webhooks.register(command);
  }
}

@CommandHandler(DeleteWebhook)
export class DeleteWebhookHandler implements ICommandHandler<DeleteWebhook> {
  constructor(@Inject(WebhookUseCases) private readonly webhooks: WebhookUseCases) {}

  execute(command: DeleteWebhook): Promise<{ readonly position: number }> {
    return this.webhooks.remove(command);
  }
}

@QueryHandler(ListWebhooks)
export class ListWebhooksHandler implements IQueryHandler<ListWebhooks> {
  constructor(@Inject(WebhookUseCases) private readonly webhooks: WebhookUseCases) {}

  execute({ caller }: ListWebhooks): Promise<WebhookView[]> {
    return this.webhooks.list(caller);
  }
}

@QueryHandler(GetWebhook)
export class GetWebhookHandler implements IQueryHandler<GetWebhook> {
  constructor(@Inject(WebhookUseCases) private readonly webhooks: WebhookUseCases) {}

  execute({ caller, webhookId }: GetWebhook): Promise<WebhookView> {
    return this.webhooks.show(caller, webhookId);
  }
}

@QueryHandler(ListWebhookDeliveries)
export class ListWebhookDeliveriesHandler implements IQueryHandler<ListWebhookDeliveries> {
  constructor(@Inject(WebhookUseCases) private readonly webhooks: WebhookUseCases) {}

  execute({ caller, webhookId, limit }: ListWebhookDeliveries): Promise<DeliveryView[]> {
    return this.webhooks.deliveries(caller, webhookId, limit);
  }
}

export const WEBHOOK_HANDLERS = [
  RegisterWebhookHandler,
  DeleteWebhookHandler,
  ListWebhooksHandler,
  GetWebhookHandler,
  ListWebhookDeliveriesHandler,
];
