import type { HostDownReason } from '#domain/index.js';
import type { ComputeService } from '#plugins/openstack/index.js';

/**
 * The os-services view, which is the whole truth: forced down (Nova then also says `down`, so
 * `service_down` only when the heartbeat is missing without a force), disabled, or no heartbeat.
 */
export const pollingReasons = (service: Pick<ComputeService, 'state' | 'status' | 'forced_down'>): HostDownReason[] => [
  ...(service.state === 'down' && !service.forced_down ? (['service_down'] as const) : []),
  ...(service.status === 'disabled' ? (['disabled'] as const) : []),
  ...(service.forced_down ? (['forced_down'] as const) : []),
];
