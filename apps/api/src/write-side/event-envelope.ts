import { randomUUID } from 'node:crypto';
import type { DomainEvent } from '../../../../libs/domain/src/index.js';
import type { AppendRequest, EventData, EventMetadata, ExpectedRevision } from '../../../../libs/event-store/src/event-store.port.js';
import type { RequestContext } from '../http/request-context.js';

/** Metadata for events caused by an API request: who, and which request (the audit trail). */
export const requestMetadata = (context: RequestContext): EventMetadata => ({
  correlationId: context.globalRequestId ?? context.requestId,
  causationId: context.requestId,
  actor: context.actor,
  requestId: context.requestId,
});

export const envelope = (events: readonly DomainEvent[], metadata: EventMetadata): EventData[] =>
  events.map((event) => ({ id: randomUUID(), type: event.type, data: event.data, metadata }));

export const appendRequest = (
  streamId: string,
  expectedRevision: ExpectedRevision,
  events: readonly DomainEvent[],
  metadata: EventMetadata,
): AppendRequest => ({ streamId, expectedRevision, events: envelope(events, metadata) });
