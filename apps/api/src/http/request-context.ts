import type { Request } from 'express';
import { DateTime } from 'luxon';
import type { Caller } from '#application/caller.js';
import type { CommandMetadata } from '#application/command.js';

/** Who is calling and how to trace the call; attached to every request by the middleware. */
export interface RequestContext {
  readonly requestId: string;
  /** A caller's own `req-<uuid>` (X-OpenStack-Request-Id), logged as the global request id. */
  readonly globalRequestId: string | null;
  /** Who calls, for the application layer: identity, roles and the policy's answers, without the request. */
  readonly caller: Caller;
}

export type ContextRequest = Request & { leasehold?: RequestContext };

export const requestContext = (request: Request): RequestContext => {
  const context = (request as ContextRequest).leasehold;
  if (context === undefined) throw new Error('request context missing: middleware not installed');
  return context;
};

/** Who sends this request, for the application layer. */
export const callerOf = (request: Request): Caller => requestContext(request).caller;

/** The metadata of a command this request sends: its caller, its request ids and the time it is decided at. */
export const commandMetadata = (request: Request, now: Date): CommandMetadata => {
  const context = requestContext(request);
  return {
    actor: context.caller,
    correlationId: context.globalRequestId ?? context.requestId,
    causationId: context.requestId,
    now: now.toISOString(),
  };
};

/**
 * The instant a command is decided at, for reading its request's dates: a `now` in the body must be
 * the very minute the decider compares against, or a request that crosses a minute boundary between
 * parsing and deciding would find its own start in the past (START_IN_PAST).
 */
export const instantOf = (metadata: CommandMetadata): DateTime => DateTime.fromISO(metadata.now, { zone: 'utc' });
