import type { Request } from 'express';
import type { Actor } from '../../../../libs/event-store/src/event-store.port.js';

/** Who is calling and how to trace the call; attached to every request by the middleware. */
export interface RequestContext {
  readonly requestId: string;
  /** A caller's own `req-<uuid>` (X-OpenStack-Request-Id), logged as the global request id. */
  readonly globalRequestId: string | null;
  readonly actor: Actor;
  readonly roles: readonly string[];
  readonly isAdmin: boolean;
}

export type ContextRequest = Request & { leasehold?: RequestContext };

export const requestContext = (request: Request): RequestContext => {
  const context = (request as ContextRequest).leasehold;
  if (context === undefined) throw new Error('request context missing: middleware not installed');
  return context;
};
