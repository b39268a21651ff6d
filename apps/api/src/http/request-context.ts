import type { Request } from 'express';
import type { Caller } from '../../../../libs/application/src/caller.js';
import type { CommandMetadata } from '../../../../libs/application/src/command.js';
import type { Actor } from '../../../../libs/event-store/src/event-store.port.js';
import type { CallerToken } from '../../../../libs/application/src/caller-token.js';
import type { PolicyEnforcer } from '../../../../libs/application/src/policy/policy.enforcer.js';
import type { Credentials } from '../../../../libs/application/src/policy/policy-rule.js';

/** Who is calling and how to trace the call; attached to every request by the middleware. */
export interface RequestContext {
  readonly requestId: string;
  /** A caller's own `req-<uuid>` (X-OpenStack-Request-Id), logged as the global request id. */
  readonly globalRequestId: string | null;
  /** Who calls, for the application layer: identity, roles and the policy's answers, without the request. */
  readonly caller: Caller;
  /** The authenticated user and project (Keystone's ids in auth mode keystone); recorded on every event. */
  readonly actor: Actor;
  readonly roles: readonly string[];
  /** The policy's `admin` rule holds for the caller: every project's leases, private properties. */
  readonly isAdmin: boolean;
  /** What policy rules see (oslo.context's `to_policy_values()`). */
  readonly credentials: Credentials;
  readonly policy: PolicyEnforcer;
  /** The request's X-Auth-Token in auth modes keystone and static (null in `none`), to act as the caller in Keystone. */
  readonly callerToken: CallerToken | null;
}

export type ContextRequest = Request & { leasehold?: RequestContext };

export const requestContext = (request: Request): RequestContext => {
  const context = (request as ContextRequest).leasehold;
  if (context === undefined) throw new Error('request context missing: middleware not installed');
  return context;
};

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
