import type { Decider } from '../shared/decider.js';
import { conflict, invalid } from '../shared/errors.js';
import { toMs } from '../shared/interval.js';
import type { AggregateActivity, HostActivityCommand, InstanceActivity, RecordHostActivity } from './host-activity.commands.js';
import type { HostActivityEvent } from './host-activity.events.js';
import { type HostActivityState, type InstanceSeen, RECENT_MESSAGE_IDS, initialHostActivityState } from './host-activity.state.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const check = ({ data }: RecordHostActivity, state: HostActivityState): void => {
  if (data.hostId === '') throw invalid('INVALID_HOST_ACTIVITY', 'A host activity needs a host id');
  if (data.messageId === '') throw invalid('INVALID_HOST_ACTIVITY', 'A host activity needs the notification message id');
  if (!ISO_UTC.test(data.occurredAt) || Number.isNaN(toMs(data.occurredAt))) {
    throw invalid('INVALID_HOST_ACTIVITY', `occurredAt must be an ISO-8601 UTC time, got '${data.occurredAt}'`);
  }
  if (!data.eventType.startsWith(`${data.activity.kind}.`)) {
    throw invalid('INVALID_HOST_ACTIVITY', `A ${data.activity.kind} activity cannot have event type '${data.eventType}'`);
  }
  if (state.status === 'Recording' && state.hostId !== data.hostId) {
    throw conflict('HOST_ACTIVITY_HOST_MISMATCH', `This activity stream belongs to host ${state.hostId}, not ${data.hostId}`);
  }
};

const instanceEvent = (command: RecordHostActivity, activity: InstanceActivity): HostActivityEvent => {
  const { hostId, eventType, occurredAt, messageId } = command.data;
  const { instanceId, projectId, flavorId, state } = activity;
  return {
    type: 'HostActivity.InstanceNotified',
    data: { hostId, eventType, instanceId, projectId, flavorId, state, occurredAt, messageId },
  };
};

const aggregateEvent = (command: RecordHostActivity, activity: AggregateActivity): HostActivityEvent => {
  const { hostId, eventType, occurredAt, messageId } = command.data;
  const { aggregateUuid, aggregateId, aggregateName, hosts } = activity;
  return {
    type: 'HostActivity.AggregateNotified',
    data: { hostId, eventType, aggregateUuid, aggregateId, aggregateName, hosts, occurredAt, messageId },
  };
};

/** One event per notification; a message already recorded adds nothing. */
const decide = (command: HostActivityCommand, state: HostActivityState): readonly HostActivityEvent[] => {
  check(command, state);
  if (state.status === 'Recording' && state.recentMessageIds.includes(command.data.messageId)) return [];
  const { activity } = command.data;
  switch (activity.kind) {
    case 'instance':
      return [instanceEvent(command, activity)];
    case 'aggregate':
      return [aggregateEvent(command, activity)];
    default: {
      const _never: never = activity;
      return _never;
    }
  }
};

const isGone = (eventType: string, state: string | null): boolean => state === 'deleted' || eventType === 'instance.delete.end';

const withInstance = (
  instances: ReadonlyMap<string, InstanceSeen>,
  event: Extract<HostActivityEvent, { type: 'HostActivity.InstanceNotified' }>,
) => {
  const next = new Map(instances);
  const { instanceId, projectId, flavorId, state, eventType, occurredAt } = event.data;
  if (isGone(eventType, state)) next.delete(instanceId);
  else next.set(instanceId, { projectId, flavorId, state, lastEventType: eventType, lastAt: occurredAt });
  return next;
};

const evolve = (state: HostActivityState, event: HostActivityEvent): HostActivityState => {
  const current =
    state.status === 'Recording'
      ? state
      : { status: 'Recording' as const, hostId: event.data.hostId, instances: new Map<string, InstanceSeen>(), recentMessageIds: [] };
  const recentMessageIds = [...current.recentMessageIds, event.data.messageId].slice(-RECENT_MESSAGE_IDS);
  switch (event.type) {
    case 'HostActivity.InstanceNotified':
      return { ...current, instances: withInstance(current.instances, event), recentMessageIds };
    case 'HostActivity.AggregateNotified':
      return { ...current, recentMessageIds };
    default: {
      const _never: never = event;
      return state;
    }
  }
};

export const hostActivityDecider: Decider<HostActivityState, HostActivityCommand, HostActivityEvent> = {
  initialState: initialHostActivityState,
  decide,
  evolve,
};
