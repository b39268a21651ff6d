import { type DomainError, isDomainError } from '#domain/index.js';
import type { EventMetadata } from '#event-store/event-store.port.js';
import { type Caller, policyNotAuthorized } from '../caller.js';
import { type CommandMetadata, eventMetadata } from '../command.js';

/** What a reaction's events were caused by, as the ledger had it when the reaction was decided. */
export interface ReactionCause {
  readonly correlationId: string;
  readonly causationId: string;
}

/** Reactions record what the service itself did (timers, the cloud's outcomes): no user sends them. */
export const requireService = (caller: Caller, command: string): void => {
  if (caller.system === null) throw policyNotAuthorized(`leasehold:reactions:${command}`);
};

/**
 * A reaction's events: the service as actor (`actor: null`, `system`), the reaction's name, and their
 * cause: the command's, or the one the decision read from the ledger (newer than the command's when
 * the decision was taken again after a conflict).
 */
export const reactionMetadata = (metadata: CommandMetadata, reaction: string, cause: ReactionCause = metadata): EventMetadata =>
  eventMetadata({ ...metadata, ...cause }, { reaction });

/** The decider's events, or the domain's refusal (the reactor's view was behind the ledger). */
export const decided = <E>(decide: () => readonly E[]): readonly E[] | DomainError => {
  try {
    return decide();
  } catch (error) {
    if (isDomainError(error)) return error;
    throw error;
  }
};
