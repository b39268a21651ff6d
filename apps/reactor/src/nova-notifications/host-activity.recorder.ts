import {
  type HostActivityEvent,
  type RecordHostActivity,
  foldEvents,
  hostActivityDecider,
  hostActivityStream,
} from '../../../../libs/domain/src/index.js';
import { type EventStore, WrongExpectedRevisionError } from '../../../../libs/event-store/src/event-store.port.js';
import { deterministicId } from '../deterministic-id.js';

const MAX_ATTEMPTS = 5;

/** Appends a host's activity; the event id comes from the notification's message id, so a redelivery is a replay. */
export class HostActivityRecorder {
  constructor(private readonly store: EventStore) {}

  async record(command: RecordHostActivity): Promise<'recorded' | 'duplicate'> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.attempt(command);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  private async attempt(command: RecordHostActivity): Promise<'recorded' | 'duplicate'> {
    const { hostId, messageId } = command.data;
    const streamId = hostActivityStream(hostId);
    const recorded = await this.store.readStream(streamId);
    const state = foldEvents(hostActivityDecider, recorded.map((e) => e as unknown as HostActivityEvent));
    const [event] = hostActivityDecider.decide(command, state);
    if (event === undefined) return 'duplicate';
    const id = deterministicId(`nova-notification:${messageId}:activity:${hostId}`);
    const metadata = { correlationId: messageId, causationId: messageId, actor: null, reaction: 'nova-notification' };
    const result = await this.store.appendToStream(streamId, recorded.length - 1, [{ id, type: event.type, data: event.data, metadata }]);
    return result.idempotentReplay ? 'duplicate' : 'recorded';
  }
}
