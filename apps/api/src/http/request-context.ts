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

/** What carries a caller's context: an HTTP request (the hook sets it) or a GraphQL socket's upgrade request. */
export interface ContextCarrier {
  leasehold?: RequestContext;
}

declare module 'fastify' {
  interface FastifyRequest extends ContextCarrier {}
}

export const requestContext = (request: ContextCarrier): RequestContext => {
  const context = request.leasehold;
  if (context === undefined) throw new Error('request context missing: the openstackHeaders hook is not installed');
  return context;
};

/** Who sends this request, for the application layer. */
export const callerOf = (request: ContextCarrier): Caller => requestContext(request).caller;

/** The metadata of a command this request sends: its caller, its request ids and the time it is decided at. */
export const commandMetadata = (request: ContextCarrier, now: Date): CommandMetadata => {
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
