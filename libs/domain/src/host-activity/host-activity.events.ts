import type { DomainEvent } from '../shared/decider.js';

/** A Nova `instance.*` notification about a server on a Leasehold host. */
export type HostActivityInstanceNotified = DomainEvent<
  'HostActivity.InstanceNotified',
  {
    readonly hostId: string;
    readonly eventType: string;
    readonly instanceId: string;
    readonly projectId: string;
    readonly flavorId: string | null;
    readonly state: string | null;
    readonly occurredAt: string;
    readonly messageId: string;
  }
>;

/** A Nova `aggregate.*` notification about an aggregate that lists a Leasehold host. */
export type HostActivityAggregateNotified = DomainEvent<
  'HostActivity.AggregateNotified',
  {
    readonly hostId: string;
    readonly eventType: string;
    readonly aggregateUuid: string;
    readonly aggregateId: number | null;
    readonly aggregateName: string;
    readonly hosts: readonly string[];
    readonly occurredAt: string;
    readonly messageId: string;
  }
>;

export type HostActivityEvent = HostActivityInstanceNotified | HostActivityAggregateNotified;

export const HOST_ACTIVITY_EVENT_TYPES: readonly HostActivityEvent['type'][] = [
  'HostActivity.InstanceNotified',
  'HostActivity.AggregateNotified',
];
