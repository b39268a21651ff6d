import type { HostDownReason, HostHealth } from '#domain/index.js';

/** What a monitor saw of a host's compute service. */
export type HostObservation =
  /** The cloud's service list, which is the whole truth (no reasons: up). */
  | { readonly source: 'polling'; readonly reasons: readonly HostDownReason[] }
  /** A service update: its flags, but nothing of the service's liveness. */
  | { readonly source: 'notification'; readonly messageId: string; readonly disabled: boolean; readonly forcedDown: boolean };

/**
 * A service.update (ServiceStatusPayload) carries `disabled` and `forced_down` but no up/down:
 * liveness is only judged by Nova's API from heartbeats. So a notification sets those two reasons
 * and keeps whatever `service_down` the polling monitor last recorded; both monitors then agree.
 */
export const notificationReasons = (
  update: { readonly disabled: boolean; readonly forcedDown: boolean },
  current: HostHealth,
): HostDownReason[] => [
  ...(current.status === 'down' && current.reasons.includes('service_down') && !update.forcedDown ? (['service_down'] as const) : []),
  ...(update.disabled ? (['disabled'] as const) : []),
  ...(update.forcedDown ? (['forced_down'] as const) : []),
];

/** The reasons an observation gives, given the health recorded so far (a notification only knows part of the truth). */
export const observedReasons = (observation: HostObservation, current: HostHealth): readonly HostDownReason[] =>
  observation.source === 'polling' ? observation.reasons : notificationReasons(observation, current);
