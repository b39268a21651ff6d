import type { Command } from '../shared/decider.js';

export interface InstanceActivity {
  readonly kind: 'instance';
  readonly instanceId: string;
  readonly projectId: string;
  readonly flavorId: string | null;
  readonly state: string | null;
}

export interface AggregateActivity {
  readonly kind: 'aggregate';
  readonly aggregateUuid: string;
  readonly aggregateId: number | null;
  readonly aggregateName: string;
  readonly hosts: readonly string[];
}

/** Records one cloud notification about a Leasehold host; `messageId` is the cloud's own message id. */
export type RecordHostActivity = Command<
  'RecordHostActivity',
  {
    readonly hostId: string;
    readonly eventType: string;
    readonly occurredAt: string;
    readonly messageId: string;
    readonly activity: InstanceActivity | AggregateActivity;
  }
>;

export type HostActivityCommand = RecordHostActivity;
