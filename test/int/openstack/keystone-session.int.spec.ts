/** Keystone v3 password auth, token caching, catalog lookup and call correlation against the real control plane. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  NovaClient,
  OpenStackHttpError,
  OpenStackNoEndpointError,
  OpenStackUnreachableError,
  type OpenStackCallLog,
  requestIdFor,
} from '#plugins/openstack/index.js';
import { OPENSTACK_ENV_FILE, openStackEnv, sessionFor, uniqueName } from './openstack.fixtures.js';

describe.skipIf(!OPENSTACK_ENV_FILE)('OpenStack session (Keystone v3, real control plane)', () => {
  const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);

  it('authenticates once and reuses the token for every call', async () => {
    const session = sessionFor(env.admin);
    const nova = new NovaClient(session);
    await nova.listAggregates();
    await nova.listFlavors();
    await session.endpoint('placement');
    expect(session.tokensIssued).toBe(1);
    expect(await session.roles()).toContain('admin');
  });

  it('finds compute, placement and network in the catalog, for the public and the internal interface', async () => {
    for (const iface of ['public', 'internal'] as const) {
      const session = sessionFor(env.admin, { interface: iface });
      expect(await session.endpoint('compute')).toBe(env.urls.compute);
      expect(await session.endpoint('placement')).toBe(env.urls.placement);
      expect(await session.endpoint('network')).toBe(env.urls.network);
      expect(await session.endpoint('image')).toBe(env.urls.image);
    }
  });

  it('scopes a member to its project', async () => {
    const session = sessionFor(env.demo);
    expect(await session.projectId()).toBe(env.demoProjectId);
    expect(await session.roles()).toContain('member');
  });

  it('uses an endpoint override instead of the catalog', async () => {
    const session = sessionFor(env.admin, { endpointOverrides: { compute: `${env.urls.compute}/` } });
    expect(await session.endpoint('compute')).toBe(env.urls.compute);
    expect((await new NovaClient(session).listServices({ binary: 'nova-compute' })).length).toBeGreaterThanOrEqual(3);
  });

  it('reports a region without endpoints as a missing endpoint', async () => {
    const session = sessionFor({ ...env.admin, regionName: 'NoSuchRegion' });
    await expect(session.endpoint('compute')).rejects.toBeInstanceOf(OpenStackNoEndpointError);
  });

  it("turns a wrong password into a 401 with Keystone's message", async () => {
    const session = sessionFor({ ...env.admin, password: 'wrong' });
    const error = await session.token().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenStackHttpError);
    expect(error).toMatchObject({ status: 401, code: 'OPENSTACK_UNAUTHORIZED', service: 'identity', transient: false });
    expect((error as OpenStackHttpError).cloudMessage).toMatch(/authenticate|authentication/i);
  });

  it('reports a cloud that does not answer as unreachable (transient)', async () => {
    const session = sessionFor({ ...env.admin, authUrl: 'http://127.0.0.1:9/v3' }, { timeoutMs: 2_000 });
    const error = await session.token().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenStackUnreachableError);
    expect(error).toMatchObject({ code: 'OPENSTACK_UNREACHABLE', transient: true });
  });

  it('gets a new token and repeats the call when the cloud refuses a revoked one', async () => {
    const session = sessionFor(env.admin);
    const token = await session.token();
    const admin = sessionFor(env.admin);
    await admin.request('identity', 'DELETE', '/auth/tokens', { headers: { 'X-Subject-Token': token } });
    // Placement has never seen this token, so it asks Keystone, which refuses it: 401, new token, same call again
    const reply = await session.request<{ resource_providers: unknown[] }>('placement', 'GET', '/resource_providers');
    expect(reply.body.resource_providers.length).toBeGreaterThanOrEqual(3);
    expect(session.tokensIssued).toBe(2);
    expect(await session.token()).not.toBe(token);
  });

  it('sends one global request id per correlated client, which Nova logs with the call', async () => {
    const lines: OpenStackCallLog[] = [];
    const key = uniqueName('effect');
    const id = requestIdFor(key);
    expect(id).toMatch(/^req-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(requestIdFor(key)).toBe(id);
    const nova = new NovaClient(sessionFor(env.admin, { log: (line) => lines.push(line) })).withRequestId(id);
    await nova.listAggregates();
    await nova.listServices();
    expect(lines.map((l) => l.globalRequestId)).toEqual([id, id]);
    expect(lines.every((l) => l.status === 200 && l.requestId?.startsWith('req-') === true)).toBe(true);
    const novaLog = readFileSync(join(env.root, 'nova', 'log', 'nova-api.log'), 'utf8');
    expect(novaLog).toContain(id);
    expect(() => sessionFor(env.admin).withRequestId('not-a-request-id')).toThrow(/req-<uuid>/);
  });
});
