import { createHash, randomUUID } from 'node:crypto';
import {
  type CallSite,
  OpenStackNoEndpointError,
  OpenStackUnreachableError,
  type ServiceType,
  createHttpError,
  parseErrorBody,
} from './openstack.errors.js';

export type EndpointInterface = 'public' | 'internal' | 'admin';

/** Password credentials scoped to a project, as in an openrc (OS_AUTH_URL, OS_USERNAME, ...). */
export interface KeystoneCredentials {
  /** Identity v3 root, e.g. http://127.0.0.1:61357/v3. */
  readonly authUrl: string;
  readonly username: string;
  readonly password: string;
  readonly projectName: string;
  readonly userDomainName: string;
  readonly projectDomainName: string;
  /** Catalog region to use; null: the first endpoint of the interface, whatever its region. */
  readonly regionName: string | null;
}

/** One line per call, for the caller's log: who answered, how fast, and the ids to find it in the cloud's logs. */
export interface OpenStackCallLog {
  readonly service: ServiceType;
  readonly method: string;
  readonly path: string;
  readonly status: number | null;
  readonly ms: number;
  readonly globalRequestId: string;
  readonly requestId: string | null;
}

export interface SessionOptions {
  /** Which catalog endpoints to use (default public). */
  readonly interface?: EndpointInterface;
  /** Per-request timeout (default 30 s). */
  readonly timeoutMs?: number;
  /** Overrides the catalog for a service type (a URL as the catalog would give it). */
  readonly endpointOverrides?: Partial<Record<ServiceType, string>>;
  readonly fetch?: typeof fetch;
  readonly now?: () => number;
  readonly log?: (line: OpenStackCallLog) => void;
}

export interface RequestOptions {
  readonly body?: unknown;
  /** Undefined values are left out; arrays repeat the key. */
  readonly query?: Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>;
  /** `compute 2.87`-style microversion, sent as OpenStack-API-Version (and Nova's legacy header). */
  readonly microversion?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A raw body (e.g. image data) instead of JSON. */
  readonly raw?: { readonly contentType: string; readonly data: Uint8Array };
  /** Acts with this token (e.g. a caller's own, to create a trust as its trustor) instead of the session's; not renewed on 401. */
  readonly authToken?: string;
}

/** What a session's token is scoped to: the credentials' project, or a Keystone trust (the trustor's project). */
type TokenScope = { readonly kind: 'project' } | { readonly kind: 'trust'; readonly trustId: string };

export interface OpenStackResponse<T> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
  readonly requestId: string | null;
}

interface CatalogEntry {
  readonly type: string;
  readonly endpoints: readonly {
    readonly interface: string;
    readonly region_id?: string;
    readonly region?: string;
    readonly url: string;
  }[];
}

interface Token {
  readonly value: string;
  readonly expiresAt: number;
  readonly projectId: string;
  readonly userId: string;
  readonly roles: readonly string[];
  readonly catalog: readonly CatalogEntry[];
}

interface TokenBody {
  readonly token: {
    readonly expires_at: string;
    readonly project: { readonly id: string };
    readonly user: { readonly id: string };
    readonly roles?: readonly { readonly name: string }[];
    readonly catalog?: readonly CatalogEntry[];
  };
}

/** A token is renewed this long before Keystone says it expires. */
const RENEW_MARGIN_MS = 120_000;
const UUID_PATTERN = /^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A global request id derived from a stable key (e.g. an effect's idempotency key), so every retry of
 * one effect shows up under the same id in Nova's, Placement's and Neutron's logs. OpenStack only
 * accepts ids of the form req-<uuid>.
 */
export const requestIdFor = (key: string): string => {
  const hex = createHash('sha256').update(key).digest('hex');
  return `req-${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

/** Keystone v3 password authentication with one cached project-scoped token, shared by every session derived from it. */
class KeystoneAuth {
  private current: Token | null = null;
  private pending: Promise<Token> | null = null;
  /** Tokens issued so far (for tests and logs). */
  issued = 0;

  constructor(
    readonly credentials: KeystoneCredentials,
    private readonly fetchFn: typeof fetch,
    private readonly now: () => number,
    private readonly timeoutMs: number,
    private readonly scope: TokenScope = { kind: 'project' },
  ) {}

  /** The same user's authentication, scoped to a trust instead (a token of its own). */
  forTrust(trustId: string): KeystoneAuth {
    return new KeystoneAuth(this.credentials, this.fetchFn, this.now, this.timeoutMs, { kind: 'trust', trustId });
  }

  async token(): Promise<Token> {
    if (this.current !== null && this.current.expiresAt - RENEW_MARGIN_MS > this.now()) return this.current;
    this.pending ??= this.issue().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  /** Forgets a token the cloud refused (revoked, or Keystone restarted with new keys). */
  invalidate(value: string): void {
    if (this.current?.value === value) this.current = null;
  }

  private async issue(): Promise<Token> {
    const c = this.credentials;
    const body = {
      auth: {
        identity: {
          methods: ['password'],
          password: { user: { name: c.username, domain: { name: c.userDomainName }, password: c.password } },
        },
        scope:
          this.scope.kind === 'trust'
            ? { 'OS-TRUST:trust': { id: this.scope.trustId } }
            : { project: { name: c.projectName, domain: { name: c.projectDomainName } } },
      },
    };
    const site: CallSite = { service: 'identity', method: 'POST', path: '/auth/tokens', globalRequestId: `req-${randomUUID()}` };
    const url = `${c.authUrl.replace(/\/+$/, '')}/auth/tokens`;
    let response: Response;
    try {
      response = await this.fetchFn(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-OpenStack-Request-ID': site.globalRequestId },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new OpenStackUnreachableError(site, url, error);
    }
    const text = await response.text();
    if (!response.ok) {
      const parsed = parseErrorBody(text);
      throw createHttpError(site, {
        status: response.status,
        cloudMessage: parsed.message,
        cloudCode: parsed.code,
        requestId: response.headers.get('x-openstack-request-id'),
      });
    }
    const value = response.headers.get('x-subject-token') ?? '';
    const { token } = JSON.parse(text) as TokenBody;
    this.issued++;
    this.current = {
      value,
      expiresAt: Date.parse(token.expires_at),
      projectId: token.project.id,
      userId: token.user.id,
      roles: (token.roles ?? []).map((r) => r.name),
      catalog: token.catalog ?? [],
    };
    return this.current;
  }
}

const queryString = (query: RequestOptions['query']): string => {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value as readonly string[]) params.append(key, v);
    else params.append(key, String(value));
  }
  const s = params.toString();
  return s === '' ? '' : `?${s}`;
};

/**
 * Authenticated REST calls to the services of one OpenStack cloud, found through Keystone's catalog.
 * Every call sends a global request id (X-OpenStack-Request-ID, fixed with `withRequestId`), retries
 * once with a new token when the cloud answers 401, and turns every non-2xx answer into an
 * OpenStackHttpError (OpenStackNotFoundError for 404, OpenStackConflictError for 409).
 */
export class OpenStackSession {
  private readonly fetchFn: typeof fetch;
  private readonly now: () => number;
  private readonly endpointInterface: EndpointInterface;
  private readonly timeoutMs: number;

  private constructor(
    private readonly auth: KeystoneAuth,
    private readonly options: SessionOptions,
    private readonly globalRequestId: string | null,
  ) {
    this.fetchFn = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
    this.endpointInterface = options.interface ?? 'public';
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  static create(credentials: KeystoneCredentials, options: SessionOptions = {}): OpenStackSession {
    const auth = new KeystoneAuth(credentials, options.fetch ?? fetch, options.now ?? Date.now, options.timeoutMs ?? 30_000);
    return new OpenStackSession(auth, options, null);
  }

  /**
   * The same user authenticated with a token scoped to a Keystone trust: with an impersonating trust its
   * calls act as the trustor, in the trust's project (e.g. a tenant's server group made by Leasehold).
   * A trust that is gone or refused fails every call with the token's 401 or 403.
   */
  forTrust(trustId: string): OpenStackSession {
    return new OpenStackSession(this.auth.forTrust(trustId), this.options, this.globalRequestId);
  }

  /** The same credentials and token, with every call carrying this global request id (req-<uuid>, see requestIdFor). */
  withRequestId(globalRequestId: string): OpenStackSession {
    if (!UUID_PATTERN.test(globalRequestId)) throw new Error(`not a request id of the form req-<uuid>: ${globalRequestId}`);
    return new OpenStackSession(this.auth, this.options, globalRequestId);
  }

  get tokensIssued(): number {
    return this.auth.issued;
  }

  async token(): Promise<string> {
    return (await this.auth.token()).value;
  }

  /** The project the token is scoped to. */
  async projectId(): Promise<string> {
    return (await this.auth.token()).projectId;
  }

  async userId(): Promise<string> {
    return (await this.auth.token()).userId;
  }

  async roles(): Promise<readonly string[]> {
    return (await this.auth.token()).roles;
  }

  /** The catalog URL of a service type for this session's interface and region (no trailing slash). */
  async endpoint(service: ServiceType): Promise<string> {
    const override = this.options.endpointOverrides?.[service];
    if (override !== undefined) return override.replace(/\/+$/, '');
    // Keystone is asked where the session signed in: catalogs often list it without its /v3
    if (service === 'identity') return this.auth.credentials.authUrl.replace(/\/+$/, '');
    const { catalog } = await this.auth.token();
    const region = this.auth.credentials.regionName;
    const entry = catalog.find((e) => e.type === service);
    const endpoint = entry?.endpoints.find(
      (e) => e.interface === this.endpointInterface && (region === null || (e.region_id ?? e.region) === region),
    );
    if (endpoint === undefined) throw new OpenStackNoEndpointError(service, this.endpointInterface, region);
    return endpoint.url.replace(/\/+$/, '');
  }

  async request<T>(service: ServiceType, method: string, path: string, options: RequestOptions = {}): Promise<OpenStackResponse<T>> {
    const site: CallSite = { service, method, path, globalRequestId: this.globalRequestId ?? `req-${randomUUID()}` };
    const url = `${await this.endpoint(service)}${path}${queryString(options.query)}`;
    if (options.authToken !== undefined) return this.answer(site, await this.send(site, url, options.authToken, options));
    let token = await this.auth.token();
    let response = await this.send(site, url, token.value, options);
    if (response.status === 401) {
      this.auth.invalidate(token.value);
      token = await this.auth.token();
      response = await this.send(site, url, token.value, options);
    }
    return this.answer(site, response);
  }

  private async answer<T>(site: CallSite, response: Response): Promise<OpenStackResponse<T>> {
    const requestId = response.headers.get('x-openstack-request-id') ?? response.headers.get('x-compute-request-id');
    const text = await response.text();
    if (!response.ok) {
      const parsed = parseErrorBody(text);
      throw createHttpError(site, { status: response.status, cloudMessage: parsed.message, cloudCode: parsed.code, requestId });
    }
    const body = (text === '' ? undefined : (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text) as T;
    return { status: response.status, body, headers: response.headers, requestId };
  }

  private async send(site: CallSite, url: string, token: string, options: RequestOptions): Promise<Response> {
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'X-Auth-Token': token,
      'X-OpenStack-Request-ID': site.globalRequestId,
      ...options.headers,
    };
    if (options.microversion !== undefined) {
      headers['OpenStack-API-Version'] = `${site.service} ${options.microversion}`;
      if (site.service === 'compute') headers['X-OpenStack-Nova-API-Version'] = options.microversion;
    }
    let body: string | Uint8Array | undefined;
    if (options.raw !== undefined) {
      headers['Content-Type'] = options.raw.contentType;
      body = options.raw.data;
    } else if (options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const started = this.now();
    let status: number | null = null;
    let requestId: string | null = null;
    try {
      const response = await this.fetchFn(url, { method: site.method, headers, body, signal: AbortSignal.timeout(this.timeoutMs) });
      status = response.status;
      requestId = response.headers.get('x-openstack-request-id') ?? response.headers.get('x-compute-request-id');
      return response;
    } catch (error) {
      throw new OpenStackUnreachableError(site, url, error);
    } finally {
      this.options.log?.({
        service: site.service,
        method: site.method,
        path: site.path,
        status,
        ms: this.now() - started,
        globalRequestId: site.globalRequestId,
        requestId,
      });
    }
  }
}
