import { systemCaller } from '#application/caller.js';
import type { CommandMetadata } from '#application/command.js';

/** The reactor acting on its own: the actor of every command it sends. */
export const REACTOR = systemCaller('reactor');

/** What a reaction answers: the event (or the cloud's message) it reacts to, and that one's correlation. */
export interface Cause {
  readonly correlationId: string;
  readonly causationId: string;
}

/** A reactor command's metadata: decided at the reactor's clock's now. */
export const reactorMetadata = (cause: Cause, clock: () => Date): CommandMetadata => ({
  actor: REACTOR,
  ...cause,
  now: clock().toISOString(),
});
