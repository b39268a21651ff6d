import { createHash } from 'node:crypto';
import { type Authenticator, type Identity, IdentityServiceUnavailable } from './identity.js';
import { describeError } from '#domain/index.js';

export interface KeystoneSettings {
  /** Identity API v3 root, e.g. http://127.0.0.1:62357/v3 (no trailing slash). */
  readonly url: string;
  readonly username: string;
  readonly password: string;
  readonly projectName: string;
  readonly userDomainName: string;
  readonly projectDomainName: string;
  /**
   * How long Keystone's answer about a token is trusted without asking again, i.e. how long a revoked
   * token keeps working (a valid token never past its `expires_at`, a refused one at most
   * `negativeTtlMs`); 0: never remembered, every request asks Keystone.
   */
  readonly cacheSeconds: number;
  readonly timeoutMs: number;
}

export interface KeystoneAuthenticatorOptions {
  readonly fetch?: typeof fetch;
  readonly now?: () => number;
  /** How long a refused token is remembered as refused. */
  readonly negativeTtlMs?: number;
  readonly maxEntries?: number;
  readonly log?: (line: Record<string, unknown>) => void;
}

interface CacheEntry {
  readonly identity: Identity | null;
  readonly until: number;
}

interface TokenBody {
  readonly token?: {
    readonly expires_at?: string;
    readonly user?: { readonly id?: string; readonly name?: string; readonly domain?: { readonly id?: string } };
    readonly project?: { readonly id?: string; readonly name?: string; readonly domain?: { readonly id?: string } };
    readonly roles?: readonly { readonly name?: string }[];
  };
}

/** The service's own token is renewed this long before it expires. */
const SERVICE_TOKEN_MARGIN_MS = 60_000;

const digest = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Auth mode `keystone`, as keystonemiddleware's auth_token does it: each request's X-Auth-Token is
 * validated with `GET /v3/auth/tokens` (X-Subject-Token), authenticated by Leasehold's own token
 * (password credentials of its service user). Valid tokens are remembered for `cacheSeconds` (or
 * until their `expires_at` if sooner), refused ones briefly; concurrent requests with the same token
 * share one validation. Only project-scoped tokens are accepted (leases belong to projects).
 */
export class KeystoneAuthenticator implements Authenticator {
  private readonly fetch: typeof fetch;
  private readonly now: () => number;
  private readonly negativeTtlMs: number;
  private readonly maxEntries: number;
  private readonly log: (line: Record<string, unknown>) => void;
  private service: { readonly token: string; readonly until: number } | null = null;
  private serviceRequest: Promise<string> | null = null;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly pending = new Map<string, Promise<Identity | null>>();
  /** Calls made to Keystone, for tests and the startup log. */
  readonly calls = { serviceTokens: 0, validations: 0 };

  constructor(
    private readonly settings: KeystoneSettings,
    options: KeystoneAuthenticatorOptions = {},
  ) {
    this.fetch = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
    this.negativeTtlMs = options.negativeTtlMs ?? 5_000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.log = options.log ?? ((line) => console.error(JSON.stringify({ app: 'api', ...line })));
  }

  async authenticate(token: string | undefined): Promise<Identity | null> {
    if (token === undefined || token === '') return null;
    const key = digest(token);
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      if (cached.until > this.now()) return cached.identity;
      this.cache.delete(key);
    }
    let pending = this.pending.get(key);
    if (pending === undefined) {
      pending = this.validate(token)
        .then((entry) => {
          this.remember(key, entry);
          return entry.identity;
        })
        .finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    return pending;
  }

  /** Obtains the service token now (at start), so a misconfiguration shows in the log at once. */
  async warmUp(): Promise<void> {
    await this.serviceToken();
  }

  private remember(key: string, entry: CacheEntry): void {
    if (entry.until <= this.now()) return;
    if (this.cache.size >= this.maxEntries) {
      const now = this.now();
      for (const [k, e] of this.cache) if (e.until <= now) this.cache.delete(k);
      // still full: forget the oldest entries (Map iterates in insertion order)
      for (const k of this.cache.keys()) {
        if (this.cache.size < this.maxEntries) break;
        this.cache.delete(k);
      }
    }
    this.cache.set(key, entry);
  }

  private async request(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Response> {
    try {
      return await this.fetch(`${this.settings.url}${path}`, {
        method,
        headers: { Accept: 'application/json', ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (error) {
      const reason = describeError(error);
      this.log({ keystone: 'unreachable', url: this.settings.url, error: reason });
      throw new IdentityServiceUnavailable(`Keystone at ${this.settings.url} is unreachable: ${reason}`);
    }
  }

  private async serviceToken(): Promise<string> {
    if (this.service !== null && this.service.until - SERVICE_TOKEN_MARGIN_MS > this.now()) return this.service.token;
    if (this.serviceRequest === null) {
      this.serviceRequest = this.requestServiceToken().finally(() => {
        this.serviceRequest = null;
      });
    }
    return this.serviceRequest;
  }

  private async requestServiceToken(): Promise<string> {
    const { username, password, projectName, userDomainName, projectDomainName } = this.settings;
    this.calls.serviceTokens++;
    const response = await this.request(
      'POST',
      '/auth/tokens?nocatalog',
      {},
      {
        auth: {
          identity: { methods: ['password'], password: { user: { name: username, domain: { name: userDomainName }, password } } },
          scope: { project: { name: projectName, domain: { name: projectDomainName } } },
        },
      },
    );
    const token = response.headers.get('x-subject-token');
    if (response.status !== 201 || token === null) {
      await response.body?.cancel();
      this.log({ keystone: 'service credentials refused', status: response.status, user: username, project: projectName });
      throw new IdentityServiceUnavailable(`Keystone refused Leasehold's service credentials (HTTP ${response.status})`);
    }
    const body = (await response.json()) as TokenBody;
    const expires = Date.parse(body.token?.expires_at ?? '');
    this.service = { token, until: Number.isNaN(expires) ? this.now() + 5 * 60_000 : expires };
    return token;
  }

  private async validate(token: string): Promise<CacheEntry> {
    for (let attempt = 1; ; attempt++) {
      const serviceToken = await this.serviceToken();
      this.calls.validations++;
      const response = await this.request('GET', '/auth/tokens?nocatalog', { 'X-Auth-Token': serviceToken, 'X-Subject-Token': token });
      if (response.status === 200) return this.accepted((await response.json()) as TokenBody);
      await response.body?.cancel();
      if (response.status === 404 || response.status === 400) return this.refused();
      if (response.status === 401 && attempt === 1) {
        this.service = null; // our own token expired or was revoked: get a new one, ask again
        continue;
      }
      this.log({ keystone: 'token validation failed', status: response.status });
      throw new IdentityServiceUnavailable(`Keystone answered HTTP ${response.status} to a token validation`);
    }
  }

  private refused(): CacheEntry {
    return { identity: null, until: this.now() + Math.min(this.negativeTtlMs, this.settings.cacheSeconds * 1000) };
  }

  private accepted(body: TokenBody): CacheEntry {
    const token = body.token;
    const now = this.now();
    const expires = Date.parse(token?.expires_at ?? '');
    const userId = token?.user?.id;
    const projectId = token?.project?.id;
    if (token === undefined || Number.isNaN(expires) || expires <= now || userId === undefined || projectId === undefined) {
      return this.refused();
    }
    return {
      until: Math.min(expires, now + this.settings.cacheSeconds * 1000),
      identity: {
        userId,
        projectId,
        roles: (token.roles ?? []).flatMap((role) => (typeof role.name === 'string' ? [role.name] : [])),
        userName: token.user?.name ?? null,
        projectName: token.project?.name ?? null,
        userDomainId: token.user?.domain?.id ?? null,
        projectDomainId: token.project?.domain?.id ?? null,
        isAdmin: false,
      },
    };
  }
}
