/** What Nova last said about one server on the host. */
export interface InstanceSeen {
  readonly projectId: string;
  readonly flavorId: string | null;
  readonly state: string | null;
  readonly lastEventType: string;
  readonly lastAt: string;
}

/**
 * What the cloud has said about a host: its servers as last notified (deleted ones dropped).
 * Drift checks and usage read it; nothing here is authoritative.
 */
export type HostActivityState =
  | { readonly status: 'Empty' }
  | {
      readonly status: 'Recording';
      readonly hostId: string;
      readonly instances: ReadonlyMap<string, InstanceSeen>;
      /** The most recent message ids, to answer a redelivery with nothing even before the store sees it. */
      readonly recentMessageIds: readonly string[];
    };

export const initialHostActivityState = (): HostActivityState => ({ status: 'Empty' });

export const HOST_ACTIVITY_CATEGORY = 'hostactivity';

export const hostActivityStream = (hostId: string): string => `${HOST_ACTIVITY_CATEGORY}-${hostId}`;

/** How many message ids the state remembers (the store's event ids catch older redeliveries). */
export const RECENT_MESSAGE_IDS = 64;
