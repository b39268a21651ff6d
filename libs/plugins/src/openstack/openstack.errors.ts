/** Which catalog service a call went to (Keystone's service types). */
export type ServiceType = 'identity' | 'compute' | 'placement' | 'network' | 'image';

export type OpenStackErrorCode =
  | 'OPENSTACK_BAD_REQUEST'
  | 'OPENSTACK_UNAUTHORIZED'
  | 'OPENSTACK_FORBIDDEN'
  | 'OPENSTACK_NOT_FOUND'
  | 'OPENSTACK_CONFLICT'
  | 'OPENSTACK_HTTP_ERROR'
  | 'OPENSTACK_UNREACHABLE'
  | 'OPENSTACK_NO_ENDPOINT';

/** Base of every failure the OpenStack clients raise; `transient` says whether retrying later may help. */
export abstract class OpenStackError extends Error {
  abstract readonly code: OpenStackErrorCode;
  abstract readonly transient: boolean;
}

export interface CallSite {
  readonly service: ServiceType;
  readonly method: string;
  readonly path: string;
  /** The global request id we sent (X-OpenStack-Request-ID). */
  readonly globalRequestId: string;
}

export interface CloudReply {
  readonly status: number;
  /** The message the service put in its error body (or the start of its text body). */
  readonly cloudMessage: string;
  /** A machine-readable code when the service gives one: Placement's `placement.concurrent_update`, Neutron's `FloatingIPNotFound`. */
  readonly cloudCode: string | null;
  /** The service's own id for the request (x-openstack-request-id), to find it in its logs. */
  readonly requestId: string | null;
}

const codeOf = (status: number): OpenStackErrorCode => {
  switch (status) {
    case 400:
      return 'OPENSTACK_BAD_REQUEST';
    case 401:
      return 'OPENSTACK_UNAUTHORIZED';
    case 403:
      return 'OPENSTACK_FORBIDDEN';
    case 404:
      return 'OPENSTACK_NOT_FOUND';
    case 409:
      return 'OPENSTACK_CONFLICT';
    default:
      return 'OPENSTACK_HTTP_ERROR';
  }
};

/** A non-2xx answer. */
export class OpenStackHttpError extends OpenStackError {
  readonly code: OpenStackErrorCode;
  readonly status: number;
  readonly service: ServiceType;
  readonly method: string;
  readonly path: string;
  readonly cloudMessage: string;
  readonly cloudCode: string | null;
  readonly requestId: string | null;
  readonly globalRequestId: string;

  constructor(site: CallSite, reply: CloudReply) {
    super(`${site.service} ${site.method} ${site.path}: ${reply.status} ${reply.cloudMessage}`);
    this.name = new.target.name;
    this.code = codeOf(reply.status);
    this.status = reply.status;
    this.service = site.service;
    this.method = site.method;
    this.path = site.path;
    this.cloudMessage = reply.cloudMessage;
    this.cloudCode = reply.cloudCode;
    this.requestId = reply.requestId;
    this.globalRequestId = site.globalRequestId;
  }

  /** 5xx and 429 may pass; a 4xx will not change by itself. */
  get transient(): boolean {
    return this.status >= 500 || this.status === 429;
  }
}

/** 404: the object does not exist (an idempotent delete treats this as done). */
export class OpenStackNotFoundError extends OpenStackHttpError {}

/** 409: a state conflict, e.g. Placement's generation check (`cloudCode` placement.concurrent_update) or a host already in an aggregate. */
export class OpenStackConflictError extends OpenStackHttpError {
  get isGenerationConflict(): boolean {
    return this.cloudCode === 'placement.concurrent_update';
  }
}

/** No answer: connection refused, reset, or timed out. */
export class OpenStackUnreachableError extends OpenStackError {
  readonly code = 'OPENSTACK_UNREACHABLE';
  readonly transient = true;

  constructor(
    readonly site: CallSite,
    readonly url: string,
    cause: unknown,
  ) {
    super(`${site.service} ${site.method} ${site.path}: no answer from ${url}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'OpenStackUnreachableError';
  }
}

/** The token's catalog has no endpoint for the service type, interface and region asked for. */
export class OpenStackNoEndpointError extends OpenStackError {
  readonly code = 'OPENSTACK_NO_ENDPOINT';
  readonly transient = false;

  constructor(
    readonly service: string,
    readonly endpointInterface: string,
    readonly region: string | null,
  ) {
    super(
      `no ${endpointInterface} endpoint for service type ${service}${region === null ? '' : ` in region ${region}`} in the Keystone catalog`,
    );
    this.name = 'OpenStackNoEndpointError';
  }
}

export const isNotFound = (error: unknown): error is OpenStackNotFoundError => error instanceof OpenStackNotFoundError;

/** For idempotent deletes: true when the call succeeded, false when the object was already gone. */
export const ignoreNotFound = async (call: Promise<unknown>): Promise<boolean> => {
  try {
    await call;
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
};

export const createHttpError = (site: CallSite, reply: CloudReply): OpenStackHttpError => {
  if (reply.status === 404) return new OpenStackNotFoundError(site, reply);
  if (reply.status === 409) return new OpenStackConflictError(site, reply);
  return new OpenStackHttpError(site, reply);
};

const firstObject = (value: unknown): Record<string, unknown> | null => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  return value as Record<string, unknown>;
};

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

/** Glance and the WSGI layers put bits of HTML and runs of newlines into their messages. */
const clean = (message: string): string =>
  message
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 500);

/**
 * The message and code out of an error body. Each service has its own shape: Nova
 * `{"itemNotFound": {"message", "code"}}`, Placement `{"errors": [{"detail", "code"}]}`, Neutron
 * `{"NeutronError": {"type", "message"}}`, Keystone `{"error": {"message", "title"}}`, Glance
 * `{"message", "code": "404 Not Found", "title"}` or plain text.
 */
export const parseErrorBody = (body: string): { readonly message: string; readonly code: string | null } => {
  const { message, code } = parseRaw(body);
  return { message: clean(message), code };
};

const parseRaw = (body: string): { readonly message: string; readonly code: string | null } => {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { message: body, code: null };
  }
  const root = firstObject(json);
  if (root === null) return { message: body, code: null };
  const errors = root['errors'];
  if (Array.isArray(errors)) {
    const first = firstObject(errors[0]);
    const detail = text(first?.['detail']) ?? text(first?.['title']) ?? body;
    // Placement prefixes the detail with a generic sentence and a blank line
    return { message: detail.split(/\n\s*\n/).at(-1) ?? detail, code: text(first?.['code']) };
  }
  const neutron = firstObject(root['NeutronError']);
  if (neutron !== null) return { message: text(neutron['message']) ?? body, code: text(neutron['type']) };
  const own = text(root['message']);
  if (own !== null) return { message: own, code: null };
  const inner = firstObject(Object.values(root)[0]);
  return { message: text(inner?.['message']) ?? text(inner?.['title']) ?? body, code: null };
};
