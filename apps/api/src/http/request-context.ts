import type { Request } from 'express';
import type { Actor } from '../../../../libs/event-store/src/event-store.port.js';
import type { CallerToken } from '../auth/caller-token.js';
import type { PolicyEnforcer } from '../policy/policy.enforcer.js';
import type { Credentials } from '../policy/policy-rule.js';

/** Who is calling and how to trace the call; attached to every request by the middleware. */
export interface RequestContext {
  readonly requestId: string;
  /** A caller's own `req-<uuid>` (X-OpenStack-Request-Id), logged as the global request id. */
  readonly globalRequestId: string | null;
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
