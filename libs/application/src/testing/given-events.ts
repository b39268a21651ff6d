import type { EventStore } from '#event-store/event-store.port.js';

/** An event as a specification states it: where it is (or is expected to be) recorded, and what it says. */
export interface StreamEvent {
  readonly streamId: string;
  readonly type: string;
  readonly data: unknown;
}

/** Appends `events` as they are (each at any revision): a history for specs, not a decision. */
export const appendGiven = async (store: EventStore, events: readonly StreamEvent[]): Promise<number> => {
  let position = await store.headPosition();
  for (const event of events) {
    const metadata = { correlationId: 'given', causationId: 'given', actor: null };
    position = (
      await store.appendToStream(event.streamId, 'any', [{ id: `given-${position + 1}`, type: event.type, data: event.data, metadata }])
    ).position;
  }
  return position;
};
