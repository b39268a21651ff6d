import { describe, expect, it } from 'vitest';
import { type HostEvent, hostActivityStream, hostStream } from '#domain/index.js';
import { HOST_ID, at, hostRegistered, smallHostInfo } from '#domain/host/testing/host.fixtures.js';
import { applicationSpecification, commandMetadata, testCaller } from '../testing/application.specification.js';
import type { HostObservation } from './host-health.reasons.js';
import { HostReactionUseCases } from './host-reactions.use-cases.js';
import { deterministicId } from './reaction-ids.js';
import { handlerOn, racing, reactionLedger, reactorAt } from './testing/reaction-ledger.js';

const STREAM = hostStream(HOST_ID);
const spec = applicationSpecification((context) => new HostReactionUseCases(context));
const onHost = (events: readonly HostEvent[]) => events.map((event) => ({ streamId: STREAM, ...event }));
const registered = onHost([hostRegistered()]);
const unregistered: HostEvent = {
  type: 'Host.Unregistered',
  data: { hostId: HOST_ID, hypervisorHostname: smallHostInfo().hypervisorHostname, unregisteredAt: at(9) },
};

const enroll = (causationId = 'registered-id') =>
  ({
    type: 'RecordHostEnrollment',
    data: { hostId: HOST_ID, direction: 'enroll', outcome: { ok: true, effects: [{ operation: 'aggregate.add_host' }] } },
    metadata: reactorAt(at(8), causationId, 'req-register'),
  }) as const;
const report = (observation: HostObservation, observedAt = at(10)) =>
  ({ type: 'ReportHostHealth', data: { hostId: HOST_ID, observedAt, observation }, metadata: reactorAt(observedAt) }) as const;
const polled = (...reasons: ('service_down' | 'disabled' | 'forced_down')[]): HostObservation => ({ source: 'polling', reasons });
const notified = (messageId: string, disabled: boolean, forcedDown = false): HostObservation => ({
  source: 'notification',
  messageId,
  disabled,
  forcedDown,
});
const wentDown = (reasons: readonly string[], source: string, observedAt = at(10)) => ({
  streamId: STREAM,
  type: 'Host.WentDown',
  data: { hostId: HOST_ID, reasons, source, observedAt },
});

describe('host reactions: enrollment', () => {
  it("records the cloud's side of a registration", async () => {
    const recorded = await spec
      .given(registered)
      .when((reactions) => reactions.recordEnrollment(enroll()))
      .then(
        onHost([{ type: 'Host.Enrolled', data: { hostId: HOST_ID, effects: [{ operation: 'aggregate.add_host' }], enrolledAt: at(8) } }]),
      );
    expect(recorded).toEqual({ status: 'recorded', type: 'Host.Enrolled' });
  });

  it('an outcome already in the ledger (a rerun after a crash) is not recorded again', async () => {
    const store = await reactionLedger([{ id: 'registered-id', streamId: STREAM, ...hostRegistered(), correlationId: 'req-register' }]);
    try {
      const reactions = new HostReactionUseCases(handlerOn(store));
      await reactions.recordEnrollment(enroll());
      expect(await reactions.recordEnrollment(enroll())).toEqual({ status: 'already-recorded' });
      const [, enrolled, ...more] = await store.readStream(STREAM);
      expect(more).toEqual([]);
      expect(enrolled?.id).toBe(deterministicId('registered-id:host-enroll'));
      expect(enrolled?.metadata).toEqual({
        correlationId: 'req-register',
        causationId: 'registered-id',
        actor: null,
        system: 'reactor',
        reaction: 'host-enroll',
      });
    } finally {
      await store.close();
    }
  });

  it('an enrollment outcome for a host removed meanwhile is superseded (its removal is owed instead)', async () => {
    const recorded = await spec
      .given([...registered, ...onHost([unregistered])])
      .when((reactions) => reactions.recordEnrollment(enroll()))
      .then([]);
    expect(recorded).toMatchObject({ status: 'superseded', reason: expect.stringMatching(/no longer applies/) });
  });

  it('no user may send it', async () => {
    await spec
      .given(registered)
      .when((reactions) => reactions.recordEnrollment({ ...enroll(), metadata: commandMetadata(testCaller('admin'), at(8)) }))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED' });
  });
});

describe('host reactions: health', () => {
  it("records a change of health only; an unknown or removed host is not Leasehold's", async () => {
    expect(
      await spec
        .given(registered)
        .when((reactions) => reactions.reportHealth(report(polled('forced_down'))))
        .then([wentDown(['forced_down'], 'polling')]),
    ).toBe('Host.WentDown');
    expect(
      await spec
        .given(registered)
        .when((reactions) => reactions.reportHealth(report(polled())))
        .then([]),
    ).toBe('unchanged');
    expect(
      await spec
        .given([])
        .when((reactions) => reactions.reportHealth(report(polled('disabled'))))
        .then([]),
    ).toBe('not-registered');
    expect(
      await spec
        .given([...registered, ...onHost([unregistered])])
        .when((reactions) => reactions.reportHealth(report(polled('disabled'))))
        .then([]),
    ).toBe('not-registered');
  });

  it('a notification keeps the service_down only polling can see', async () => {
    const outcome = await spec
      .given([...registered, wentDown(['service_down'], 'polling', at(9))])
      .when((reactions) => reactions.reportHealth(report(notified('m-1', true))))
      .then([
        {
          streamId: STREAM,
          type: 'Host.DownReasonsChanged',
          data: { hostId: HOST_ID, reasons: ['service_down', 'disabled'], source: 'notification', observedAt: at(10) },
        },
      ]);
    expect(outcome).toBe('Host.DownReasonsChanged');
  });

  it('a notification is caused by its message and keyed by it; a poll is its own cause, keyed by the revision it was decided on', async () => {
    const store = await reactionLedger([{ id: 'registered-id', streamId: STREAM, ...hostRegistered(), correlationId: 'req-register' }]);
    try {
      const reactions = new HostReactionUseCases(handlerOn(store));
      await reactions.reportHealth(report(notified('m-1', true)));
      await reactions.reportHealth(report(polled(), at(11)));
      const [, down, up] = await store.readStream(STREAM);
      expect(down).toMatchObject({
        id: deterministicId('nova-notification:m-1:health'),
        metadata: { correlationId: 'm-1', causationId: 'm-1', actor: null, reaction: 'nova-notification' },
      });
      const pollId = deterministicId(`host-poll:${HOST_ID}:1:health`);
      expect(up).toMatchObject({
        id: pollId,
        type: 'Host.CameUp',
        metadata: { correlationId: pollId, causationId: pollId, actor: null, reaction: 'host-polling' },
      });
    } finally {
      await store.close();
    }
  });

  it('a change of the host recorded between the read and the append: the report is decided again on the fresh host', async () => {
    const store = await reactionLedger([{ id: 'registered-id', streamId: STREAM, ...hostRegistered(), correlationId: 'req-register' }]);
    try {
      const change = () =>
        store.appendToStream(STREAM, 0, [
          {
            id: 'reservable-id',
            type: 'Host.ReservableChanged',
            data: { hostId: HOST_ID, reservable: false, reason: 'maintenance', changedAt: at(9) },
            metadata: { correlationId: 'req', causationId: 'req', actor: null },
          },
        ]);
      const reactions = new HostReactionUseCases(handlerOn(racing(store, change)));
      expect(await reactions.reportHealth(report(polled('disabled')))).toBe('Host.WentDown');
      expect((await store.readStream(STREAM)).map((event) => event.type)).toEqual([
        'Host.Registered',
        'Host.ReservableChanged',
        'Host.WentDown',
      ]);
    } finally {
      await store.close();
    }
  });
});

describe('host reactions: activity', () => {
  const activity = (messageId: string) =>
    ({
      type: 'RecordHostActivity',
      data: {
        hostId: HOST_ID,
        eventType: 'instance.create.end',
        occurredAt: at(10),
        messageId,
        activity: { kind: 'instance', instanceId: 'vm-1', projectId: 'project-1', flavorId: null, state: 'active' },
      },
      metadata: reactorAt(at(10), messageId, messageId),
    }) as const;

  it('records a notification once however often it is delivered', async () => {
    const first = await spec
      .given([])
      .when((reactions) => reactions.recordActivity(activity('m-1')))
      .then([
        {
          streamId: hostActivityStream(HOST_ID),
          type: 'HostActivity.InstanceNotified',
          data: {
            hostId: HOST_ID,
            eventType: 'instance.create.end',
            instanceId: 'vm-1',
            projectId: 'project-1',
            flavorId: null,
            state: 'active',
            occurredAt: at(10),
            messageId: 'm-1',
          },
        },
      ]);
    expect(first).toBe('recorded');
    const store = await reactionLedger([]);
    try {
      const reactions = new HostReactionUseCases(handlerOn(store));
      await reactions.recordActivity(activity('m-1'));
      expect(await reactions.recordActivity(activity('m-1'))).toBe('duplicate');
      const [recorded, ...more] = await store.readStream(hostActivityStream(HOST_ID));
      expect(more).toEqual([]);
      expect(recorded?.id).toBe(deterministicId(`nova-notification:m-1:activity:${HOST_ID}`));
    } finally {
      await store.close();
    }
  });
});
