import { authorize } from '#application/caller.js';
import { type ContextCarrier, type RequestContext, requestContext } from '../http/request-context.js';

/**
 * The request's context once the policy allows `action` on the caller's own target: asked before a
 * body is parsed, because upstream answers 403 before 400; the use case enforces the same action.
 */
export const authorizedRequest = (request: ContextCarrier, action: string): RequestContext => {
  const context = requestContext(request);
  authorize(context.caller, action);
  return context;
};
