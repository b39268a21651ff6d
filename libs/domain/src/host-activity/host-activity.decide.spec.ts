import { describe, expect, it } from 'vitest';
import { foldEvents } from '../shared/decider.js';
import { DeciderSpecification } from '../shared/specification.js';
import type { AggregateActivity, InstanceActivity, RecordHostActivity } from './host-activity.commands.js';
import { hostActivityDecider } from './host-activity.decide.js';
import type { HostActivityEvent } from './host-activity.events.js';
import { RECENT_MESSAGE_IDS, hostActivityStream } from './host-activity.state.js';

const given = DeciderSpecification.for(hostActivityDecider);
const AT = '2026-11-22T03:00:11.020Z';
const SERVER = '19286185-f6e9-49b6-a085-c3bf8affcb4c';

const server = (state: string | null = 'active'): InstanceActivity => ({
  kind: 'instance',
  instanceId: SERVER,
  projectId: 'p-1',
  flavorId: 'f-1',
  state,
});
const freepool: AggregateActivity = {
  kind: 'aggregate',
  aggregateUuid: 'agg-uuid',
  aggregateId: 1,
  aggregateName: 'freepool',
  hosts: ['fake-host-2'],
};

const record = (
  eventType: string,
  activity: InstanceActivity | AggregateActivity,
  messageId = 'm-1',
  hostId = '2',
  occurredAt = AT,
): RecordHostActivity => ({
  type: 'RecordHostActivity',
  data: { hostId, eventType, occurredAt, messageId, activity },
});

const instanceNotified = (eventType: string, messageId: string, state: string | null = 'active'): HostActivityEvent => ({
  type: 'HostActivity.InstanceNotified',
  data: { hostId: '2', eventType, instanceId: SERVER, projectId: 'p-1', flavorId: 'f-1', state, occurredAt: AT, messageId },
});

describe('RecordHostActivity', () => {
  it('Given nothing, When an instance notification is recorded, Then InstanceNotified', () => {
    given([])
      .when(record('instance.create.end', server()))
      .then([instanceNotified('instance.create.end', 'm-1')]);
  });

  it('Given nothing, When an aggregate notification is recorded, Then AggregateNotified with the aggregate and its hosts', () => {
    given([])
      .when(record('aggregate.add_host.end', freepool))
      .then([
        {
          type: 'HostActivity.AggregateNotified',
          data: {
            hostId: '2',
            eventType: 'aggregate.add_host.end',
            aggregateUuid: 'agg-uuid',
            aggregateId: 1,
            aggregateName: 'freepool',
            hosts: ['fake-host-2'],
            occurredAt: AT,
            messageId: 'm-1',
          },
        },
      ]);
  });

  it('Given a recorded message, When the same message id comes again, Then nothing is recorded', () => {
    given([instanceNotified('instance.create.end', 'm-1')])
      .when(record('instance.create.end', server()))
      .thenNothing();
  });

  it('Given a recorded message, When another message comes, Then it is recorded', () => {
    given([instanceNotified('instance.create.end', 'm-1')])
      .when(record('instance.update', server('active'), 'm-2'))
      .then([instanceNotified('instance.update', 'm-2')]);
  });

  it("Given another host's activity, When recorded on this stream, Then HOST_ACTIVITY_HOST_MISMATCH", () => {
    given([instanceNotified('instance.create.end', 'm-1')])
      .when(record('instance.update', server(), 'm-2', '3'))
      .thenThrows('HOST_ACTIVITY_HOST_MISMATCH');
  });

  it('When the event type does not match the activity, Then INVALID_HOST_ACTIVITY', () => {
    given([]).when(record('aggregate.create.end', server())).thenThrows('INVALID_HOST_ACTIVITY', "event type 'aggregate.create.end'");
    given([]).when(record('instance.create.end', freepool)).thenThrows('INVALID_HOST_ACTIVITY');
  });

  it('When the message id is empty, Then INVALID_HOST_ACTIVITY', () => {
    given([])
      .when(record('instance.create.end', server(), ''))
      .thenThrows('INVALID_HOST_ACTIVITY', 'message id');
  });

  it('When the host id is empty, Then INVALID_HOST_ACTIVITY', () => {
    given([])
      .when(record('instance.create.end', server(), 'm-1', ''))
      .thenThrows('INVALID_HOST_ACTIVITY', 'host id');
  });

  it('When the time is not ISO-8601 UTC, Then INVALID_HOST_ACTIVITY', () => {
    given([])
      .when(record('instance.create.end', server(), 'm-1', '2', '2026-11-22 03:00:11.020602'))
      .thenThrows('INVALID_HOST_ACTIVITY', 'occurredAt');
  });
});

describe('host activity state', () => {
  it('keeps the servers last notified on the host, and drops deleted ones', () => {
    const state = foldEvents(hostActivityDecider, [
      instanceNotified('instance.create.end', 'm-1'),
      {
        type: 'HostActivity.InstanceNotified',
        data: { ...instanceNotified('instance.create.end', 'm-2').data, instanceId: 'other' } as never,
      },
      instanceNotified('instance.delete.end', 'm-3', 'deleted'),
    ] as HostActivityEvent[]);
    expect(state.status === 'Recording' ? [...state.instances.keys()] : null).toEqual(['other']);
  });

  it('remembers a bounded number of message ids', () => {
    const events = Array.from({ length: RECENT_MESSAGE_IDS + 5 }, (_, i) => instanceNotified('instance.update', `m-${i}`));
    const state = foldEvents(hostActivityDecider, events);
    expect(state.status === 'Recording' ? state.recentMessageIds.length : 0).toBe(RECENT_MESSAGE_IDS);
    expect(hostActivityStream('2')).toBe('hostactivity-2');
  });
});
