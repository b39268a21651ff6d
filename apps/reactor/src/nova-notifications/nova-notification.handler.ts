import { type AggregateActivity, type InstanceActivity, isDomainError } from '#domain/index.js';
import type { CommandMetadata } from '#application/command.js';
import type { CommandBus } from '@nestjs/cqrs';
import type { ManagedHosts } from '../host-monitor/managed-hosts.js';
import { reactorMetadata } from '../reactor-metadata.js';
import { RecordHostActivity, ReportHostHealth } from '../commands/reactor.commands.js';
import type { ReactorLogEntry } from '../scheduler.js';
import { type NotificationMeaning, meaningOf } from './nova-notification.mapping.js';
import { type NovaNotification, parseNovaNotification } from './oslo-envelope.js';

export interface NovaNotificationHandlerOptions {
  readonly hosts: ManagedHosts;
  readonly commands: CommandBus;
  readonly log: (entry: ReactorLogEntry) => void;
  readonly clock?: () => Date;
}

/** What became of one message; every one of these is acknowledged. */
export type HandledAs = 'malformed' | 'ignored' | 'invalid' | 'unmanaged' | 'rejected' | 'recorded' | 'unchanged' | 'duplicate';

/**
 * One AMQP message to the ledger. Resolves once the ledger holds what the message means (or it
 * means nothing to Leasehold); rejects only on a failure worth retrying (the store, mostly).
 */
export class NovaNotificationHandler {
  constructor(private readonly options: NovaNotificationHandlerOptions) {}

  async handle(body: Buffer | string): Promise<HandledAs> {
    const parsed = parseNovaNotification(body);
    if (!parsed.ok) {
      this.options.log({ event: 'notification-malformed', reason: parsed.reason, body: String(body).slice(0, 200) });
      return 'malformed';
    }
    const meaning = meaningOf(parsed.notification);
    try {
      return await this.apply(parsed.notification, meaning);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      this.log(parsed.notification, 'rejected', { code: error.code, error: error.message });
      return 'rejected';
    }
  }

  private async apply(n: NovaNotification, meaning: NotificationMeaning): Promise<HandledAs> {
    switch (meaning.kind) {
      case 'ignored':
        return 'ignored';
      case 'invalid':
        this.log(n, 'invalid', { reason: meaning.reason });
        return 'invalid';
      case 'service':
        return this.service(n, meaning);
      case 'instance': {
        const host = await this.options.hosts.byServiceHost(meaning.serviceHost);
        if (host === null) return this.unmanaged(n, [meaning.serviceHost]);
        return this.recordActivity(n, host.hostId, meaning.activity);
      }
      case 'aggregate':
        return this.aggregate(n, meaning);
      default: {
        const _never: never = meaning;
        return _never;
      }
    }
  }

  private async service(n: NovaNotification, meaning: Extract<NotificationMeaning, { kind: 'service' }>): Promise<HandledAs> {
    const host = await this.options.hosts.byServiceHost(meaning.serviceHost);
    if (host === null) return this.unmanaged(n, [meaning.serviceHost]);
    const { disabled, forcedDown } = meaning;
    const outcome = await this.options.commands.execute(
      new ReportHostHealth(
        {
          hostId: host.hostId,
          observedAt: n.occurredAt,
          observation: { source: 'notification', messageId: n.messageId, disabled, forcedDown },
        },
        this.metadata(n),
      ),
    );
    if (outcome === 'not-registered') return this.unmanaged(n, [meaning.serviceHost]);
    if (outcome === 'unchanged') return 'unchanged';
    this.log(n, 'recorded', { hostId: host.hostId, outcome });
    return 'recorded';
  }

  private async aggregate(n: NovaNotification, meaning: Extract<NotificationMeaning, { kind: 'aggregate' }>): Promise<HandledAs> {
    let result: HandledAs = 'unmanaged';
    for (const name of meaning.hosts) {
      const host = await this.options.hosts.byServiceHost(name);
      if (host !== null) result = await this.recordActivity(n, host.hostId, meaning.activity);
    }
    return result === 'unmanaged' ? this.unmanaged(n, meaning.hosts) : result;
  }

  private async recordActivity(n: NovaNotification, hostId: string, activity: InstanceActivity | AggregateActivity): Promise<HandledAs> {
    const { eventType, occurredAt, messageId } = n;
    const data = { hostId, eventType, occurredAt, messageId, activity };
    const outcome = await this.options.commands.execute(new RecordHostActivity(data, this.metadata(n)));
    if (outcome === 'recorded') this.log(n, 'recorded', { hostId });
    return outcome;
  }

  /** What the message means is the reactor's reaction to it: the message is its cause. */
  private metadata(n: NovaNotification): CommandMetadata {
    return reactorMetadata({ correlationId: n.messageId, causationId: n.messageId }, this.options.clock ?? (() => new Date()));
  }

  private unmanaged(n: NovaNotification, hosts: readonly string[]): HandledAs {
    this.options.log({
      event: 'notification',
      level: 'debug',
      handledAs: 'unmanaged',
      eventType: n.eventType,
      messageId: n.messageId,
      hosts,
    });
    return 'unmanaged';
  }

  private log(n: NovaNotification, handledAs: HandledAs, details: Readonly<Record<string, unknown>>): void {
    this.options.log({ event: 'notification', handledAs, eventType: n.eventType, messageId: n.messageId, ...details });
  }
}
