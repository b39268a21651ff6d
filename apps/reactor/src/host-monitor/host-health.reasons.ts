import type { HostDownReason, HostHealth } from '../../../../libs/domain/src/index.js';
import type { ComputeService } from '../../../../libs/plugins/src/openstack/index.js';

/**
 * The os-services view, which is the whole truth: forced down (Nova then also says `down`, so
 * `service_down` only when the heartbeat is missing without a force), disabled, or no heartbeat.
 */
export const pollingReasons = (service: Pick<ComputeService, 'state' | 'status' | 'forced_down'>): HostDownReason[] => [
  ...(service.state === 'down' && !service.forced_down ? (['service_down'] as const) : []),
  ...(service.status === 'disabled' ? (['disabled'] as const) : []),
  ...(service.forced_down ? (['forced_down'] as const) : []),
];

/**
 * A service.update (ServiceStatusPayload) carries `disabled` and `forced_down` but no up/down:
 * liveness is only judged by Nova's API from heartbeats. So a notification sets those two reasons
 * and keeps whatever `service_down` the polling monitor last recorded; both monitors then agree.
 */
export const notificationReasons = (update: { readonly disabled: boolean; readonly forcedDown: boolean }, current: HostHealth): HostDownReason[] => [
  ...(current.status === 'down' && current.reasons.includes('service_down') && !update.forcedDown ? (['service_down'] as const) : []),
  ...(update.disabled ? (['disabled'] as const) : []),
  ...(update.forcedDown ? (['forced_down'] as const) : []),
];
