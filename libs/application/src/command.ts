import type { DomainEvent } from '#domain/index.js';
import type { AppendRequest, EventData, EventMetadata, ExpectedRevision } from '#event-store/event-store.port.js';
import type { Caller } from './caller.js';

/** Who sent a command, which request it belongs to, and the time it is decided at: time is data here. */
export interface CommandMetadata {
  readonly actor: Caller;
  /** The request (or outside event) the command is part of: every event it causes carries it. */
  readonly correlationId: string;
  /** What caused this command directly (the request id, or the event a reaction answers). */
  readonly causationId: string;
  /** ISO-8601 UTC. */
  readonly now: string;
}

/** A command as every transport sends it: plain data, no framework object. */
export interface AppCommand<Type extends string = string, Data = unknown> {
  readonly type: Type;
  readonly data: Data;
  readonly metadata: CommandMetadata;
}

/** What the events a command causes record about it (the audit trail): who, and which request. */
export const eventMetadata = (metadata: CommandMetadata, extra: Readonly<Record<string, unknown>> = {}): EventMetadata => {
  const { actor } = metadata;
  return {
    correlationId: metadata.correlationId,
    causationId: metadata.causationId,
    actor: actor.system === null ? { userId: actor.userId, projectId: actor.projectId } : null,
    ...(actor.system === null ? { requestId: metadata.causationId } : { system: actor.system }),
    ...extra,
  };
};

/** Envelopes for a stream's new events, one `newId()` each (a deterministic sequence for idempotent reactions). */
export const appendTo = (
  streamId: string,
  expectedRevision: ExpectedRevision,
  events: readonly DomainEvent[],
  metadata: EventMetadata,
  newId: () => string,
): AppendRequest => ({
  streamId,
  expectedRevision,
  events: events.map((event): EventData => ({ id: newId(), type: event.type, data: event.data, metadata })),
});

const GUARDS = new WeakSet<AppendRequest>();

/**
 * An append of no events that the decision's write still checks: `streamId` must be at
 * `expectedRevision` when the decision's events are written (a fence that writes nothing, so the
 * decisions guarded on one stream do not conflict with each other). A decision writing nothing checks nothing.
 */
export const guardOf = (streamId: string, expectedRevision: ExpectedRevision): AppendRequest => {
  const guard: AppendRequest = { streamId, expectedRevision, events: [] };
  GUARDS.add(guard);
  return guard;
};

export const isGuard = (append: AppendRequest): boolean => GUARDS.has(append);
