import type { Request } from 'express';
import { type RequestContext, requestContext } from '../http/request-context.js';
import type { Target } from '../../../../libs/application/src/policy/policy-rule.js';

/** Upstream's default target: the caller's own project and user (collections, creates, hosts). */
export const ownTarget = (context: RequestContext): Target => ({ project_id: context.actor.projectId, user_id: context.actor.userId });

/** The target of a call on an existing lease: the stored lease's project and user (LP#2120655). */
export const leaseTarget = (lease: { readonly projectId: string; readonly userId: string }): Target => ({
  project_id: lease.projectId,
  user_id: lease.userId,
});

/** Throws upstream's 403 `Policy doesn't allow <action> to be performed` unless the policy allows it. */
export const authorize = (context: RequestContext, action: string, target: Target = ownTarget(context)): void =>
  context.policy.authorize(action, context.credentials, target);

export const allowed = (context: RequestContext, action: string, target: Target = ownTarget(context)): boolean =>
  context.policy.check(action, context.credentials, target);

/** The request's context once the policy allows `action` on the caller's own target (collections, creates, admin routes). */
export const authorizedRequest = (request: Request, action: string): RequestContext => {
  const context = requestContext(request);
  authorize(context, action);
  return context;
};
