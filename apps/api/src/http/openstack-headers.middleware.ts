import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { ApiConfig } from '../config.js';
import { blazarError } from './blazar-error.js';
import type { ContextRequest } from './request-context.js';

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

type VersionCheck = { readonly ok: true; readonly version: string } | { readonly ok: false; readonly status: number; readonly message: string };

export const checkVersion = (header: string | undefined): VersionCheck => {
  const requested = requestedVersion(header);
  if (requested === null || requested.toLowerCase() === 'latest') return { ok: true, version: '1.0' };
  const match = VERSION.exec(requested);
  if (match === null) {
    return { ok: false, status: 400, message: `API Version String ${requested} is of invalid format. Must be of format MajorNum.MinorNum.` };
  }
  if (requested !== '1.0') {
    return { ok: false, status: 406, message: `Version ${requested} is not supported by the API. Minimum is 1.0 and maximum is 1.0.` };
  }
  return { ok: true, version: requested };
};

const logWhenDone = (request: Request, response: Response, requestId: string, globalRequestId: string | null): void => {
  const started = process.hrtime.bigint();
  response.once('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const line = { app: 'api', method: request.method, path: request.originalUrl, status: response.statusCode, ms: +ms.toFixed(2) };
    console.log(JSON.stringify({ ...line, request_id: requestId, global_request_id: globalRequestId }));
  });
};

/** Request ids, microversion negotiation and the caller's identity (auth mode `none`). */
export const openstackHeaders =
  (config: ApiConfig) =>
  (request: Request, response: Response, next: NextFunction): void => {
    const requestId = `req-${randomUUID()}`;
    response.setHeader('X-OpenStack-Request-Id', requestId);
    const inbound = request.header('x-openstack-request-id');
    const globalRequestId = inbound !== undefined && REQUEST_ID.test(inbound) ? inbound : null;
    if (config.accessLog) logWhenDone(request, response, requestId, globalRequestId);
    (request as ContextRequest).leasehold = {
      requestId,
      globalRequestId,
      actor: { userId: config.defaultUserId, projectId: config.defaultProjectId },
      roles: ['admin', 'member', 'reader'],
      isAdmin: true,
    };
    if (!request.path.startsWith('/v1')) {
      next();
      return;
    }
    const version = checkVersion(request.header('openstack-api-version'));
    if (!version.ok) {
      response.status(version.status).json(blazarError(version.status, version.message));
      return;
    }
    response.setHeader('OpenStack-API-Version', `${SERVICE} ${version.version}`);
    response.setHeader('Vary', 'OpenStack-API-Version');
    next();
  };
