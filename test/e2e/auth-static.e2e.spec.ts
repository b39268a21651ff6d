/**
 * Auth mode `static` end to end: version discovery without a token, keystonemiddleware's 401, the
 * caller's global request id in the access log and in the ledger, and the real `openstack` CLI with
 * `--os-auth-type admin_token`.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_ID } from '../helpers/api-fixtures.js';
import { blazarDate } from '../helpers/http.js';
import { type StaticAuth, staticAuthByToken } from '../helpers/static-auth.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const TOKENS = {
  'static-admin-token': { user_id: 'u-admin', project_id: 'p-admin', roles: ['admin'] },
  'static-member-token': { user_id: 'u-member', project_id: 'p-member', roles: ['member'], user_name: 'member', project_name: 'members' },
};
const UNAUTHORIZED_TEXT =
  '{"error": {"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}}';

let system: RunningSystem;
let tokens: StaticAuth;

beforeAll(async () => {
  tokens = staticAuthByToken(TOKENS);
  system = await startSystem({ env: tokens.env });
});

afterAll(async () => {
  await system?.stop();
  tokens?.remove();
});

const osc = (token: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(
      '/usr/bin/openstack',
      ['--os-auth-type', 'admin_token', '--os-token', token, '--os-endpoint', `${system.url}/v1`, ...args],
      { timeout: 60_000, env: { ...process.env, OS_CLOUD: '' } },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
  });

describe('auth mode static', () => {
  it.each(['/', '/versions'])('GET %s answers without a token (and ignores a bad one)', async (path) => {
    for (const headers of [{}, { 'X-Auth-Token': 'bogus' }] as Record<string, string>[]) {
      const response = await fetch(`${system.url}${path}`, { headers });
      expect(response.status).toBe(300);
      expect(((await response.json()) as any).versions[0].id).toBe('v1.0');
    }
  });

  it("refuses a missing or unknown token with keystonemiddleware's exact 401 body", async () => {
    for (const headers of [{}, { 'X-Auth-Token': 'bogus' }, { 'X-Auth-Token': '' }] as Record<string, string>[]) {
      const response = await fetch(`${system.url}/v1/leases`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.text()).toBe(UNAUTHORIZED_TEXT);
      // no Keystone to point at in static mode (LEASEHOLD_WWW_AUTHENTICATE_URI sets one)
      expect(response.headers.get('www-authenticate')).toBeNull();
      expect(response.headers.get('x-openstack-request-id')).toMatch(REQUEST_ID);
    }
  });

  it("accepts a caller's req-<uuid> as the global request id: logged, and the correlation id of the events it causes", async () => {
    const globalId = `req-${randomUUID()}`;
    const response = await fetch(`${system.url}/v1/leases`, {
      method: 'POST',
      headers: { 'X-Auth-Token': 'static-member-token', 'Content-Type': 'application/json', 'X-OpenStack-Request-Id': globalId },
      body: JSON.stringify({
        name: 'global-id',
        start_date: blazarDate(60 * 24 * 3),
        end_date: blazarDate(60 * 24 * 3 + 60),
        reservations: [],
      }),
    });
    expect(response.status).toBe(201);
    const requestId = response.headers.get('x-openstack-request-id');
    expect(requestId).toMatch(REQUEST_ID);
    expect(requestId).not.toBe(globalId); // our own id; the caller's is the global one
    const leaseId = ((await response.json()) as any).lease.id;

    const line = await eventually(async () =>
      system
        .output()
        .split('\n')
        .map((l) => l.slice(l.indexOf('{')))
        .filter((l) => l.startsWith('{') && l.includes(requestId ?? '-'))
        .map((l) => JSON.parse(l))
        .find((l) => l.method === 'POST'),
    );
    expect(line).toMatchObject({
      path: '/v1/leases',
      status: 201,
      request_id: requestId,
      global_request_id: globalId,
      user_id: 'u-member',
      project_id: 'p-member',
    });

    const db = new Database(join(system.dataDir, 'events.sqlite'), { readonly: true });
    try {
      const rows = db.prepare('select metadata from events where stream_id like ?').all(`%${leaseId}%`) as { metadata: string }[];
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(JSON.parse(row.metadata)).toMatchObject({
          correlationId: globalId,
          causationId: requestId,
          requestId,
          actor: { userId: 'u-member', projectId: 'p-member' },
        });
      }
    } finally {
      db.close();
    }
  });

  it('a malformed X-OpenStack-Request-Id is ignored (no global id)', async () => {
    const response = await fetch(`${system.url}/v1/leases`, {
      headers: { 'X-Auth-Token': 'static-admin-token', 'X-OpenStack-Request-Id': 'req-not-a-uuid' },
    });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-openstack-request-id') ?? '-';
    const line = await eventually(async () =>
      system
        .output()
        .split('\n')
        .map((l) => l.slice(l.indexOf('{')))
        .find((l) => l.startsWith('{') && l.includes(requestId)),
    );
    expect(JSON.parse(line)).toMatchObject({ request_id: requestId, global_request_id: null, user_id: 'u-admin' });
  });

  it('the openstack CLI works with --os-auth-type admin_token, and fails with a wrong token', async () => {
    const ok = await osc('static-admin-token', 'reservation', 'lease', 'list', '-f', 'json');
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).map((l: { name: string }) => l.name)).toContain('global-id');
    const refused = await osc('wrong-token', 'reservation', 'lease', 'list', '-f', 'json');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/401|Unauthorized|requires authentication/i);
  });
});
