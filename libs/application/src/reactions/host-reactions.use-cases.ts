import {
  type EnrollmentOutcome,
  type HostEvent,
  type RecordHostActivity,
  foldEvents,
  hostActivityDecider,
  hostActivityStream,
  hostDecider,
  hostStream,
  isDomainError,
} from '#domain/index.js';
import type { ApplicationContext } from '../application-context.js';
import { type AppCommand, appendTo } from '../command.js';
import type { Decision } from '../command-handler.js';
import { type HostObservation, observedReasons } from './host-health.reasons.js';
import { decided, reactionMetadata, requireService } from './reaction.js';
import { deterministicId, idSequence } from './reaction-ids.js';

export type EnrollmentDirection = 'enroll' | 'unenroll';

/** The outcome answers the command's causation: the Host.Registered / Host.Unregistered it was owed for. */
export type RecordHostEnrollmentReaction = AppCommand<
  'RecordHostEnrollment',
  { readonly hostId: string; readonly direction: EnrollmentDirection; readonly outcome: EnrollmentOutcome }
>;
export type ReportHostHealthReaction = AppCommand<
  'ReportHostHealth',
  { readonly hostId: string; readonly observedAt: string; readonly observation: HostObservation }
>;
export type RecordHostActivityReaction = AppCommand<'RecordHostActivity', RecordHostActivity['data']>;

/** Recorded (`type`: the event), already in the ledger, recorded first by another reactor, or no longer owed (the host moved on). */
export type EnrollmentRecorded =
  | { readonly status: 'recorded'; readonly type: string }
  | { readonly status: 'already-recorded' | 'replayed' }
  | { readonly status: 'superseded'; readonly reason: string };

/** 'Host.WentDown' etc. when recorded, 'unchanged', or 'not-registered' when the host is (no longer) Leasehold's. */
export type HealthOutcome = HostEvent['type'] | 'unchanged' | 'not-registered';

const nothing = <R>(result: R): Decision<R> => ({ appends: [], result });

/** The outcome's event id: one per (source event, reaction), so reruns and a second reactor append it once. */
const enrollmentEventId = (sourceEventId: string, direction: EnrollmentDirection): string =>
  deterministicId(`${sourceEventId}:host-${direction}`);

/** What the reactor records on a host: the cloud's side of its (un)enrollment, its health, its activity. */
export class HostReactionUseCases {
  constructor(private readonly context: Pick<ApplicationContext, 'handler'>) {}

  async recordEnrollment(command: RecordHostEnrollmentReaction): Promise<EnrollmentRecorded> {
    requireService(command.metadata.actor, command.type);
    const { hostId, direction, outcome } = command.data;
    const { handler } = this.context;
    const streamId = hostStream(hostId);
    const id = enrollmentEventId(command.metadata.causationId, direction);
    const { result, replayed } = await handler.handle(async (): Promise<Decision<EnrollmentRecorded>> => {
      const recorded = await handler.store.readStream(streamId);
      if (recorded.some((event) => event.id === id)) return nothing({ status: 'already-recorded' });
      const state = foldEvents(
        hostDecider,
        recorded.map((event) => ({ type: event.type, data: event.data }) as HostEvent),
      );
      const record = { type: 'RecordHostEnrollment', data: { hostId, direction, outcome, now: command.metadata.now } } as const;
      const events = decided(() => hostDecider.decide(record, state));
      // the host moved on (e.g. removed before its enrollment ran): the other direction's work covers it
      if (isDomainError(events)) return nothing({ status: 'superseded', reason: events.message });
      const ids = events.map((_, index) => (index === 0 ? id : deterministicId(`${id}:${index}`)));
      const metadata = reactionMetadata(command.metadata, `host-${direction}`);
      return {
        appends: [appendTo(streamId, recorded.length - 1, events, metadata, idSequence(ids))],
        result: { status: 'recorded', type: events[0]?.type ?? 'nothing' },
      };
    });
    return replayed ? { status: 'replayed' } : result;
  }

  /**
   * Records a change of health only. A notification's report is named by its message id (a redelivery
   * is a replay), a poll's by the host and the revision it was decided on; a poll is its own cause.
   */
  async reportHealth(command: ReportHostHealthReaction): Promise<HealthOutcome> {
    requireService(command.metadata.actor, command.type);
    const { hostId, observedAt, observation } = command.data;
    const { handler } = this.context;
    const streamId = hostStream(hostId);
    const { result } = await handler.handle(async (): Promise<Decision<HealthOutcome>> => {
      const host = await handler.load(hostDecider, streamId);
      if (host.state.status !== 'Registered') return nothing('not-registered');
      const reasons = observedReasons(observation, host.state.health);
      const events = hostDecider.decide(
        { type: 'ReportHostHealth', data: { reasons, source: observation.source, observedAt } },
        host.state,
      );
      const [event] = events;
      if (event === undefined) return nothing('unchanged');
      const key =
        observation.source === 'notification' ? `nova-notification:${observation.messageId}` : `host-poll:${hostId}:${host.revision}`;
      const id = deterministicId(`${key}:health`);
      const ids = events.map((_, index) => (index === 0 ? id : deterministicId(`${key}:health:${index}`)));
      const cause = observation.source === 'notification' ? observation.messageId : id;
      const reaction = observation.source === 'notification' ? 'nova-notification' : 'host-polling';
      const metadata = reactionMetadata(command.metadata, reaction, { correlationId: cause, causationId: cause });
      return { appends: [appendTo(streamId, host.revision, events, metadata, idSequence(ids))], result: event.type };
    });
    return result;
  }

  /** A host's activity; the event id comes from the notification's message id, so a redelivery is a replay. */
  async recordActivity(command: RecordHostActivityReaction): Promise<'recorded' | 'duplicate'> {
    requireService(command.metadata.actor, command.type);
    const { hostId, messageId } = command.data;
    const { handler } = this.context;
    const streamId = hostActivityStream(hostId);
    const { result, replayed } = await handler.handle(async (): Promise<Decision<'recorded' | 'duplicate'>> => {
      const activity = await handler.load(hostActivityDecider, streamId);
      const events = hostActivityDecider.decide({ type: 'RecordHostActivity', data: command.data }, activity.state);
      if (events.length === 0) return nothing('duplicate');
      const id = deterministicId(`nova-notification:${messageId}:activity:${hostId}`);
      const metadata = reactionMetadata(command.metadata, 'nova-notification', { correlationId: messageId, causationId: messageId });
      return { appends: [appendTo(streamId, activity.revision, events, metadata, idSequence([id]))], result: 'recorded' };
    });
    return replayed ? 'duplicate' : result;
  }
}
