import { describe, expect, it } from 'vitest';
import { IdentityServiceUnavailable } from './identity.js';
import { KeystoneAuthenticator, type KeystoneSettings } from './keystone-authenticator.js';

const SETTINGS: KeystoneSettings = {
  url: 'http://keystone.test/v3',
  username: 'leasehold',
  password: 'pw',
  projectName: 'service',
  userDomainName: 'Default',
  projectDomainName: 'Default',
  cacheSeconds: 2 * 3600, // longer than the tokens below live: their expires_at bounds the cache
  timeoutMs: 1000,
};

const HOUR = 3_600_000;
const T0 = Date.parse('2030-01-01T00:00:00Z');

interface Call {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: any;
}

/** A fake Keystone: `users` maps subject tokens to token bodies; `serviceTokens` are the ones it accepts. */
const fakeKeystone = (clock: { now: number }) => {
  const calls: Call[] = [];
  const state = {
    users: new Map<string, { user: string; project: string | null; roles: string[]; expires: number }>(),
    serviceTokens: new Set<string>(),
    issued: 0,
    down: false,
    validateStatus: null as number | null,
  };
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const headers = Object.fromEntries(
      Object.entries((init?.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]),
    );
    const call = {
      method: init?.method ?? 'GET',
      url: input instanceof Request ? input.url : input.toString(),
      headers,
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    calls.push(call);
    if (state.down) throw new TypeError('fetch failed');
    if (call.method === 'POST') {
      const user = call.body.auth.identity.password.user;
      if (user.name !== 'leasehold' || user.password !== 'pw') return json(401, { error: { code: 401 } });
      const token = `svc-${++state.issued}`;
      state.serviceTokens.add(token);
      return json(201, { token: { expires_at: new Date(clock.now + HOUR).toISOString() } }, { 'X-Subject-Token': token });
    }
    if (!state.serviceTokens.has(headers['x-auth-token'] ?? '')) return json(401, { error: { code: 401 } });
    if (state.validateStatus !== null) return json(state.validateStatus, {});
    const subject = state.users.get(headers['x-subject-token'] ?? '');
    if (subject === undefined || subject.expires <= clock.now)
      return json(404, { error: { code: 404, message: 'Could not recognize Fernet token' } });
    return json(200, {
      token: {
        expires_at: new Date(subject.expires).toISOString().replace('Z', '000Z'),
        user: { id: subject.user, name: `${subject.user}-name`, domain: { id: 'default' } },
        ...(subject.project === null
          ? {}
          : { project: { id: subject.project, name: `${subject.project}-name`, domain: { id: 'default' } } }),
        roles: subject.roles.map((name) => ({ id: `${name}-id`, name })),
      },
    });
  }) as typeof globalThis.fetch;
  const validations = () => calls.filter((c) => c.method === 'GET').length;
  return { fetch, calls, state, validations };
};

const setup = (settings: Partial<KeystoneSettings> = {}) => {
  const clock = { now: T0 };
  const keystone = fakeKeystone(clock);
  const logs: Record<string, unknown>[] = [];
  const auth = new KeystoneAuthenticator(
    { ...SETTINGS, ...settings },
    { fetch: keystone.fetch, now: () => clock.now, log: (l) => logs.push(l) },
  );
  keystone.state.users.set('tok-alice', { user: 'alice-id', project: 'project-a-id', roles: ['member', 'reader'], expires: T0 + HOUR });
  return { clock, keystone, auth, logs };
};

describe('Keystone token validation', () => {
  it("validates with GET /v3/auth/tokens, X-Subject-Token, authenticated by the service's own password token", async () => {
    const { keystone, auth } = setup();
    const identity = await auth.authenticate('tok-alice');
    expect(identity).toEqual({
      userId: 'alice-id',
      projectId: 'project-a-id',
      roles: ['member', 'reader'],
      userName: 'alice-id-name',
      projectName: 'project-a-id-name',
      userDomainId: 'default',
      projectDomainId: 'default',
      isAdmin: false,
    });
    const [login, validate] = keystone.calls;
    expect(login).toMatchObject({ method: 'POST', url: 'http://keystone.test/v3/auth/tokens?nocatalog' });
    expect(login?.body).toEqual({
      auth: {
        identity: { methods: ['password'], password: { user: { name: 'leasehold', domain: { name: 'Default' }, password: 'pw' } } },
        scope: { project: { name: 'service', domain: { name: 'Default' } } },
      },
    });
    expect(validate).toMatchObject({ method: 'GET', url: 'http://keystone.test/v3/auth/tokens?nocatalog' });
    expect(validate?.headers['x-auth-token']).toBe('svc-1');
    expect(validate?.headers['x-subject-token']).toBe('tok-alice');
  });

  it('caches a valid token until its expires_at, then asks again', async () => {
    const { clock, keystone, auth } = setup();
    await auth.authenticate('tok-alice');
    clock.now = T0 + HOUR - 1000;
    expect((await auth.authenticate('tok-alice'))?.userId).toBe('alice-id');
    expect(keystone.validations()).toBe(1);
    clock.now = T0 + HOUR;
    expect(await auth.authenticate('tok-alice')).toBeNull();
    expect(keystone.validations()).toBe(2);
  });

  it('LEASEHOLD_KEYSTONE_CACHE_SECONDS caps the cache (revocations are seen sooner)', async () => {
    const { clock, keystone, auth } = setup({ cacheSeconds: 60 });
    await auth.authenticate('tok-alice');
    clock.now = T0 + 59_000;
    await auth.authenticate('tok-alice');
    expect(keystone.validations()).toBe(1);
    keystone.state.users.delete('tok-alice'); // revoked
    clock.now = T0 + 61_000;
    expect(await auth.authenticate('tok-alice')).toBeNull();
  });

  it('cacheSeconds 0 remembers nothing: every request asks Keystone, so a revocation shows at once', async () => {
    const { keystone, auth } = setup({ cacheSeconds: 0 });
    expect((await auth.authenticate('tok-alice'))?.userId).toBe('alice-id');
    expect((await auth.authenticate('tok-alice'))?.userId).toBe('alice-id');
    expect(keystone.validations()).toBe(2);
    keystone.state.users.delete('tok-alice'); // revoked
    expect(await auth.authenticate('tok-alice')).toBeNull();
    expect(await auth.authenticate('tok-alice')).toBeNull();
    expect(keystone.validations()).toBe(4);
  });

  it('a refused token is not remembered longer than cacheSeconds', async () => {
    const { clock, keystone, auth } = setup({ cacheSeconds: 2 });
    expect(await auth.authenticate('tok-late')).toBeNull();
    keystone.state.users.set('tok-late', { user: 'late', project: 'p', roles: [], expires: T0 + HOUR });
    clock.now = T0 + 1_000;
    expect(await auth.authenticate('tok-late')).toBeNull();
    clock.now = T0 + 2_000;
    expect((await auth.authenticate('tok-late'))?.userId).toBe('late');
    expect(keystone.validations()).toBe(2);
  });

  it('remembers a refused token briefly', async () => {
    const { clock, keystone, auth } = setup();
    expect(await auth.authenticate('bogus')).toBeNull();
    expect(await auth.authenticate('bogus')).toBeNull();
    expect(keystone.validations()).toBe(1);
    clock.now += 6_000;
    expect(await auth.authenticate('bogus')).toBeNull();
    expect(keystone.validations()).toBe(2);
  });

  it('a missing token is refused without asking Keystone', async () => {
    const { keystone, auth } = setup();
    expect(await auth.authenticate(undefined)).toBeNull();
    expect(await auth.authenticate('')).toBeNull();
    expect(keystone.calls).toHaveLength(0);
  });

  it('concurrent requests with one token share one validation', async () => {
    const { keystone, auth } = setup();
    const identities = await Promise.all(Array.from({ length: 20 }, () => auth.authenticate('tok-alice')));
    expect(identities.every((i) => i?.userId === 'alice-id')).toBe(true);
    expect(keystone.validations()).toBe(1);
    expect(keystone.calls.filter((c) => c.method === 'POST')).toHaveLength(1);
  });

  it('refuses tokens that are not project-scoped', async () => {
    const { keystone, auth } = setup();
    keystone.state.users.set('tok-unscoped', { user: 'u', project: null, roles: [], expires: T0 + HOUR });
    expect(await auth.authenticate('tok-unscoped')).toBeNull();
  });

  it('renews its own token before it expires, and once more when Keystone rejects it', async () => {
    const { clock, keystone, auth } = setup();
    keystone.state.users.set('tok-late', { user: 'late', project: 'p', roles: [], expires: T0 + 3 * HOUR });
    await auth.authenticate('tok-alice');
    clock.now = T0 + HOUR - 30_000; // within the renewal margin
    await auth.authenticate('tok-late');
    expect(keystone.calls.filter((c) => c.method === 'POST')).toHaveLength(2);
    keystone.state.serviceTokens.clear(); // e.g. revoked
    keystone.state.users.set('tok-bob', { user: 'bob-id', project: 'p', roles: [], expires: T0 + 2 * HOUR });
    expect((await auth.authenticate('tok-bob'))?.userId).toBe('bob-id');
    expect(keystone.calls.filter((c) => c.method === 'POST')).toHaveLength(3);
  });

  it('Keystone unreachable, or refusing the service credentials, is IdentityServiceUnavailable (not cached)', async () => {
    const down = setup();
    down.keystone.state.down = true;
    await expect(down.auth.authenticate('tok-alice')).rejects.toBeInstanceOf(IdentityServiceUnavailable);
    expect(down.logs[0]).toMatchObject({ keystone: 'unreachable' });
    down.keystone.state.down = false;
    expect((await down.auth.authenticate('tok-alice'))?.userId).toBe('alice-id');

    const wrong = setup({ password: 'wrong' });
    await expect(wrong.auth.authenticate('tok-alice')).rejects.toThrow(/refused Leasehold's service credentials \(HTTP 401\)/);
    expect(JSON.stringify(wrong.logs)).not.toContain('wrong');

    const forbidden = setup();
    forbidden.keystone.state.validateStatus = 403;
    await expect(forbidden.auth.authenticate('tok-alice')).rejects.toThrow(/HTTP 403/);
  });

  it('keeps at most maxEntries tokens', async () => {
    const clock = { now: T0 };
    const keystone = fakeKeystone(clock);
    const auth = new KeystoneAuthenticator(SETTINGS, { fetch: keystone.fetch, now: () => clock.now, maxEntries: 3, log: () => {} });
    for (let i = 0; i < 5; i++) await auth.authenticate(`bogus-${i}`);
    expect(keystone.validations()).toBe(5);
    await auth.authenticate('bogus-4');
    expect(keystone.validations()).toBe(5);
    await auth.authenticate('bogus-0'); // evicted
    expect(keystone.validations()).toBe(6);
  });
});
