import { Gauge, type Registry } from 'prom-client';
import { sharedReading } from '#observability/metrics.js';
import type { ChannelStatus } from './channel-runner.js';

type ChannelField = (status: ChannelStatus) => number;

const CHANNEL_GAUGES: readonly { readonly name: string; readonly help: string; readonly value: ChannelField }[] = [
  {
    name: 'leasehold_publisher_lag_positions',
    help: 'Events in the log that a channel has not had acknowledged yet',
    value: (s) => s.lag.positions,
  },
  {
    name: 'leasehold_publisher_lag_seconds',
    help: 'Age of the oldest event a channel has not had acknowledged yet (0 when caught up)',
    value: (s) => s.lag.seconds,
  },
  {
    name: 'leasehold_publisher_failing',
    help: "1 while a channel's publish keeps failing and is being retried",
    value: (s) => (s.failing === null ? 0 : 1),
  },
];

/** Per outbound channel, from the runners' own status (the one /readyz shows). */
export const registerPublisherMetrics = (registry: Registry, statuses: () => Promise<readonly ChannelStatus[]>): void => {
  const reading = sharedReading(statuses);
  for (const { name, help, value } of CHANNEL_GAUGES) {
    new Gauge({
      name,
      help,
      labelNames: ['channel'],
      registers: [registry],
      async collect() {
        for (const status of await reading()) this.set({ channel: status.channel }, value(status));
      },
    });
  }
};
