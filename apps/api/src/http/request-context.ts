import type { Request } from 'express';
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
