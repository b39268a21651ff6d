import type { CommandBus } from '@nestjs/cqrs';
import type { EventStore } from '#event-store/event-store.port.js';
import type { OpenStackSettings } from '#plugins/cloud-config.js';
import { type ComputeService, NovaClient, OpenStackSession } from '#plugins/openstack/index.js';
import { NovaNotificationHandler } from '../nova-notifications/nova-notification.handler.js';
import { NovaNotificationsConsumer } from '../nova-notifications/nova-notifications.consumer.js';
import type { ReactorLogEntry } from '../scheduler.js';
import { HostPollingMonitor } from './host-polling.monitor.js';
import { ManagedHosts } from './managed-hosts.js';

export interface NovaMonitoringOptions {
  readonly store: EventStore;
  /** The process's CommandBus: what the monitors observe is recorded through it. */
  readonly commands: CommandBus;
  readonly settings: Pick<OpenStackSettings, 'notificationsUrl' | 'pollingIntervalSeconds'>;
  /** How the monitor lists nova-compute services: `novaComputeServices(settings)` outside tests. */
  readonly listComputeServices: () => Promise<readonly ComputeService[]>;
  readonly log: (entry: ReactorLogEntry) => void;
  readonly clock?: () => Date;
  /** Overrides for the notification consumer (queue name, backoff), mostly for tests. */
  readonly queue?: string;
}

export interface NovaMonitoring {
  readonly consumer: NovaNotificationsConsumer | null;
  readonly poller: HostPollingMonitor | null;
  stop(): Promise<void>;
}

export const novaComputeServices = (
  settings: Pick<OpenStackSettings, 'credentials' | 'interface'>,
): (() => Promise<readonly ComputeService[]>) => {
  const nova = new NovaClient(OpenStackSession.create(settings.credentials, { interface: settings.interface }));
  return () => nova.listServices({ binary: 'nova-compute' });
};

/** Host health from Nova: the notification consumer (when a URL is set) and the polling monitor (unless 0 s). */
export const startNovaMonitoring = (options: NovaMonitoringOptions): NovaMonitoring => {
  const { store, commands, settings, log } = options;
  const clock = options.clock ?? (() => new Date());
  const hosts = new ManagedHosts(store);
  const handler = new NovaNotificationHandler({ hosts, commands, log, clock });
  const consumer =
    settings.notificationsUrl === null
      ? null
      : NovaNotificationsConsumer.start({
          url: settings.notificationsUrl,
          queue: options.queue,
          handle: (body) => handler.handle(body),
          log,
        });
  const poller =
    settings.pollingIntervalSeconds === 0
      ? null
      : new HostPollingMonitor({
          listComputeServices: options.listComputeServices,
          hosts,
          commands,
          intervalMs: settings.pollingIntervalSeconds * 1_000,
          clock,
          log,
        });
  poller?.start();
  return {
    consumer,
    poller,
    stop: async () => {
      await poller?.stop();
      await consumer?.stop();
    },
  };
};
