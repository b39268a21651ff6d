import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Logger } from 'pino';
import { type AuthSetup, createAuthSetup } from '../auth/auth-setup.js';
import { CallerToken } from '#application/caller-token.js';
import { type Identity, IdentityServiceUnavailable, credentialsOf } from '../auth/identity.js';
import { sendUnauthorized, sendUnavailable } from '../auth/unauthorized.js';
import type { ApiConfig } from '../config.js';
import type { PolicyEnforcer } from '#application/policy/policy.enforcer.js';
import { userCaller } from '#application/caller.js';
import { blazarError } from './blazar-error.js';
import type { RequestContext } from './request-context.js';
import { headerOf, pathOf } from './exchange.js';

const REQUEST_ID = /^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const VERSION = /^([1-9]\d*)\.([1-9]\d*|0)$/;
const SERVICE = 'reservation';

/** Extracts the requested microversion for `reservation`; other services' entries are ignored. */
const requestedVersion = (header: string | undefined): string | null => {
  if (header === undefined) return null;
  for (const part of header.split(',')) {
    const [service, version] = part.trim().split(/\s+/, 2);
    if (service?.toLowerCase() === SERVICE && version !== undefined) return version;
  }
  return null;
};

type VersionCheck =
  { readonly ok: true; readonly version: string } | { readonly ok: false; readonly status: number; readonly message: string };

export const checkVersion = (header: string | undefined): VersionCheck => {
  const requested = requestedVersion(header);
  if (requested === null || requested.toLowerCase() === 'latest') return { ok: true, version: '1.0' };
  const match = VERSION.exec(requested);
  if (match === null) {
    return {
      ok: false,
      status: 400,
      message: `API Version String ${requested} is of invalid format. Must be of format MajorNum.MinorNum.`,
    };
  }
  if (requested !== '1.0') {
    return { ok: false, status: 406, message: `Version ${requested} is not supported by the API. Minimum is 1.0 and maximum is 1.0.` };
  }
  return { ok: true, version: requested };
};

/** The access log: one line per request once answered, with both request ids and the caller. */
const logWhenDone = (
  log: Logger,
  request: FastifyRequest,
  reply: FastifyReply,
  requestId: string,
  globalRequestId: string | null,
  who: () => Identity | null,
): void => {
  const started = process.hrtime.bigint();
  // the raw response's end, as a stream's (the feed hands it over from Fastify) ends too
  reply.raw.once('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const identity = who();
    log.info({
      method: request.method,
      path: request.originalUrl,
      status: reply.raw.statusCode,
      ms: +ms.toFixed(2),
      request_id: requestId,
      global_request_id: globalRequestId,
      user_id: identity?.userId ?? null,
      project_id: identity?.projectId ?? null,
    });
  });
};

/**
 * Reads outside the API (version discovery at `/` and `/versions`, which keystoneauth does without a
 * token; the API description) need no token in any mode; everything under /v1, and every write,
 * does. Routing ignores case, so the check does too.
 */
const isPublic = (request: FastifyRequest): boolean =>
  (request.method === 'GET' || request.method === 'HEAD') && !pathOf(request).toLowerCase().startsWith('/v1');

/** A caller's context from its identity, for the middleware and for GraphQL's WebSocket connections. */
export const contextOf = (
  requestId: string,
  globalRequestId: string | null,
  identity: Identity,
  policy: PolicyEnforcer,
  callerToken: CallerToken | null,
): RequestContext => {
  const credentials = credentialsOf(identity);
  const { userId, projectId, roles } = identity;
  return {
    requestId,
    globalRequestId,
    caller: userCaller({ userId, projectId, roles, credentials, policy, token: callerToken }),
  };
};

/**
 * Request ids, authentication (auth mode `none`: the configured local admin; `static`/`keystone`:
 * X-Auth-Token, 401 as keystonemiddleware), the caller's context for policy checks, and microversion
 * negotiation. Authentication comes first, as keystonemiddleware wraps the whole upstream API.
 * `accessLog`: where each request's line goes, or null for none.
 */
export const openstackHeaders = (config: ApiConfig, setup: AuthSetup = createAuthSetup(config), accessLog: Logger | null = null) => {
  const { authenticator, policy, wwwAuthenticateUri } = setup;
  return (request: FastifyRequest, reply: FastifyReply, next: HookHandlerDoneFunction): void => {
    const requestId = `req-${randomUUID()}`;
    reply.header('X-OpenStack-Request-Id', requestId);
    const inbound = headerOf(request, 'x-openstack-request-id');
    const globalRequestId = inbound !== undefined && REQUEST_ID.test(inbound) ? inbound : null;
    let identity: Identity | null = null;
    let callerToken: CallerToken | null = null;
    if (accessLog !== null) logWhenDone(accessLog, request, reply, requestId, globalRequestId, () => identity);

    const proceed = (): void => {
      if (identity !== null) request.leasehold = contextOf(requestId, globalRequestId, identity, policy, callerToken);
      if (!pathOf(request).startsWith('/v1')) {
        next();
        return;
      }
      const version = checkVersion(headerOf(request, 'openstack-api-version'));
      if (!version.ok) {
        void reply.code(version.status).send(blazarError(version.status, version.message));
        return;
      }
      reply.header('OpenStack-API-Version', `${SERVICE} ${version.version}`);
      reply.header('Vary', 'OpenStack-API-Version');
      next();
    };

    if (authenticator === null) {
      identity = setup.localIdentity;
      proceed();
      return;
    }
    if (isPublic(request)) {
      proceed();
      return;
    }
    authenticator.authenticate(headerOf(request, 'x-auth-token')).then(
      (found) => {
        if (found === null) {
          sendUnauthorized(reply, wwwAuthenticateUri);
          return;
        }
        identity = found;
        callerToken = new CallerToken(headerOf(request, 'x-auth-token') ?? '');
        proceed();
      },
      (error: unknown) => {
        if (error instanceof IdentityServiceUnavailable) {
          sendUnavailable(reply);
          return;
        }
        next(error as Error);
      },
    );
  };
};
