/**
 * Auth mode `keystone` against a real Keystone (scripts/services/keystone-up.sh; .ci/run starts it
 * and exports LEASEHOLD_TEST_KEYSTONE_URL). The real `openstack` CLI authenticates with a username
 * and password and finds Leasehold through Keystone's catalog (service type `reservation`, endpoint
 * http://127.0.0.1:62234/v1), with no endpoint override. Skipped when no test Keystone is running.
 */
import { execFile } from 'node:child_process';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blazarDate } from '../helpers/http.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

const KEYSTONE = process.env.LEASEHOLD_TEST_KEYSTONE_URL;
/** The port keystone-up.sh registers in the catalog (LEASEHOLD_ENDPOINT=http://127.0.0.1:62234/v1). */
const LEASEHOLD_PORT = 62234;
const UNAUTHORIZED_TEXT =
  '{"error": {"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}}';

/** Users seeded by keystone-up.sh: name, password, project. */
const USERS = {
  admin: ['admin', 'admin', 'admin'],
  alice: ['alice', 'alice-secret', 'project-a'],
  bob: ['bob', 'bob-secret', 'project-b'],
  rita: ['rita', 'rita-secret', 'project-a'],
} as const;
type User = keyof typeof USERS;

interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `openstack --os-auth-url ... --os-username ... --os-password ... reservation ...`: password auth, catalog endpoint. */
const osc = (user: User, ...args: string[]): Promise<CliResult> => {
  const [name, password, project] = USERS[user];
  const auth = [
    '--os-auth-url',
    KEYSTONE ?? '',
    '--os-username',
    name,
    '--os-password',
    password,
    '--os-project-name',
    project,
    '--os-user-domain-name',
    'Default',
    '--os-project-domain-name',
    'Default',
    '--os-identity-api-version',
    '3',
    '--os-region-name',
    'RegionOne',
  ];
  return new Promise((resolve) => {
    execFile(
      '/usr/bin/openstack',
      [...auth, 'reservation', ...args],
      { timeout: 90_000, env: { ...process.env, OS_CLOUD: '' } },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
  });
};

const json = (result: CliResult): any => {
  if (result.code !== 0) throw new Error(`CLI failed (${result.code}): ${result.stderr || result.stdout}`);
  const start = Math.min(...['{', '['].map((c) => result.stdout.indexOf(c)).filter((i) => i >= 0));
  return JSON.parse(result.stdout.slice(start));
};

/** A token straight from Keystone, with the ids it stands for. */
const keystoneToken = async (user: User): Promise<{ token: string; userId: string; projectId: string }> => {
  const [name, password, project] = USERS[user];
  const response = await fetch(`${KEYSTONE}/auth/tokens?nocatalog`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      auth: {
        identity: { methods: ['password'], password: { user: { name, domain: { name: 'Default' }, password } } },
        scope: { project: { name: project, domain: { name: 'Default' } } },
      },
    }),
  });
  expect(response.status).toBe(201);
  const body = (await response.json()) as any;
  return { token: response.headers.get('x-subject-token') ?? '', userId: body.token.user.id, projectId: body.token.project.id };
};

const eventsOfLease = (dataDir: string, leaseId: string): { type: string; metadata: any }[] => {
  const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true });
  try {
    const rows = db.prepare('select type, metadata from events where stream_id like ? order by position').all(`%${leaseId}%`) as {
      type: string;
      metadata: string;
    }[];
    return rows.map((row) => ({ type: row.type, metadata: JSON.parse(row.metadata) }));
  } finally {
    db.close();
  }
};

describe.skipIf(KEYSTONE === undefined || KEYSTONE === '')('auth mode keystone (real Keystone, real openstack CLI)', () => {
  let system: RunningSystem;
  const lease = (user: User, name: string, startMinutes: number, host: string) =>
    osc(
      user,
      'lease',
      'create',
      '-f',
      'json',
      '--reservation',
      `resource_type=physical:host,min=1,max=1,hypervisor_properties=["==","$hypervisor_hostname","${host}"],resource_properties=`,
      '--start-date',
      blazarDate(startMinutes),
      '--end-date',
      blazarDate(startMinutes + 60),
      name,
    );

  beforeAll(async () => {
    system = await startSystem({
      port: LEASEHOLD_PORT,
      env: {
        LEASEHOLD_AUTH: 'keystone',
        LEASEHOLD_KEYSTONE_URL: KEYSTONE ?? '',
        LEASEHOLD_KEYSTONE_USERNAME: 'leasehold',
        LEASEHOLD_KEYSTONE_PASSWORD: 'leasehold-secret',
        LEASEHOLD_KEYSTONE_PROJECT_NAME: 'service',
      },
    });
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('refuses a missing or invalid token with keystonemiddleware\'s 401 and WWW-Authenticate: Keystone uri="..."', async () => {
    for (const headers of [{}, { 'X-Auth-Token': 'bogus' }] as Record<string, string>[]) {
      const response = await fetch(`${system.url}/v1/leases`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(`Keystone uri="${KEYSTONE}"`);
      expect(await response.text()).toBe(UNAUTHORIZED_TEXT);
    }
    expect((await fetch(`${system.url}/`)).status).toBe(300);
    expect((await fetch(`${system.url}/versions`)).status).toBe(300);
  });

  it('accepts a Keystone token and records its user and project on the lease', async () => {
    const alice = await keystoneToken('alice');
    const response = await fetch(`${system.url}/v1/leases`, {
      method: 'POST',
      headers: { 'X-Auth-Token': alice.token, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'ks-http-lease',
        start_date: blazarDate(60 * 24 * 20),
        end_date: blazarDate(60 * 24 * 20 + 60),
        reservations: [],
      }),
    });
    expect(response.status).toBe(201);
    const created = ((await response.json()) as any).lease;
    expect(created).toMatchObject({ user_id: alice.userId, project_id: alice.projectId });
    // the same token again: answered from the cache as well
    const again = await fetch(`${system.url}/v1/leases/${created.id}`, { headers: { 'X-Auth-Token': alice.token } });
    expect(again.status).toBe(200);
  });

  it("CLI with passwords: project-b cannot see project-a's lease, rita reads but cannot create, the admin sees both; the ledger names the Keystone users", async () => {
    const host = `ks-host-${Date.now()}`;
    const registered = await osc('admin', 'host', 'create', '-f', 'json', host);
    expect(registered.code, registered.stderr).toBe(0);
    expect((await osc('alice', 'host', 'list', '-f', 'json')).code).not.toBe(0); // hosts are admin-only

    const leaseA = json(await lease('alice', 'ks-lease-a', 60 * 24 * 2, host));
    const leaseB = json(await lease('bob', 'ks-lease-b', 60 * 24 * 2 + 120, host));
    const [alice, bob] = [await keystoneToken('alice'), await keystoneToken('bob')];
    expect(leaseA).toMatchObject({ user_id: alice.userId, project_id: alice.projectId });
    expect(leaseB).toMatchObject({ user_id: bob.userId, project_id: bob.projectId });

    const names = async (user: User): Promise<string[]> =>
      json(await osc(user, 'lease', 'list', '-f', 'json')).map((l: { name: string }) => l.name);
    const bobSees = await names('bob');
    expect(bobSees).toContain('ks-lease-b');
    expect(bobSees).not.toContain('ks-lease-a');
    const shown = await osc('bob', 'lease', 'show', '-f', 'json', leaseA.id);
    expect(shown.code).not.toBe(0);
    expect(shown.stderr).toContain("Policy doesn't allow blazar:leases:get to be performed");
    const deleted = await osc('bob', 'lease', 'delete', leaseA.id);
    expect(deleted.code).not.toBe(0);
    expect(deleted.stderr).toContain("Policy doesn't allow blazar:leases:delete to be performed");

    const ritaSees = await names('rita');
    expect(ritaSees).toContain('ks-lease-a');
    expect(ritaSees).not.toContain('ks-lease-b');
    const refused = await lease('rita', 'ks-lease-rita', 60 * 24 * 2 + 240, host);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("Policy doesn't allow blazar:leases:post to be performed");

    const adminSees = await names('admin');
    expect(adminSees).toEqual(expect.arrayContaining(['ks-lease-a', 'ks-lease-b']));
    expect(adminSees).not.toContain('ks-lease-rita');

    const renamed = await osc('alice', 'lease', 'set', '--name', 'ks-lease-a2', leaseA.id);
    expect(renamed.code, renamed.stderr).toBe(0);

    const eventsA = eventsOfLease(system.dataDir, leaseA.id);
    expect(eventsA.map((e) => e.type)).toEqual(expect.arrayContaining(['Lease.Created', 'Lease.Renamed']));
    expect(eventsA.length).toBeGreaterThanOrEqual(2);
    for (const event of eventsA) expect(event.metadata.actor).toEqual({ userId: alice.userId, projectId: alice.projectId });
    for (const event of eventsOfLease(system.dataDir, leaseB.id))
      expect(event.metadata.actor).toEqual({ userId: bob.userId, projectId: bob.projectId });
  });
});

describe.skipIf(KEYSTONE === undefined || KEYSTONE === '')(
  'auth mode keystone: a revoked token stops working within LEASEHOLD_KEYSTONE_CACHE_SECONDS',
  () => {
    const CACHE_SECONDS = 2;
    /** Room for the requests themselves on a loaded machine; the bound under test is CACHE_SECONDS. */
    const SLACK_MS = 5_000;
    let system: RunningSystem;

    beforeAll(async () => {
      system = await startSystem({
        apps: ['api'],
        env: {
          LEASEHOLD_AUTH: 'keystone',
          LEASEHOLD_KEYSTONE_URL: KEYSTONE ?? '',
          LEASEHOLD_KEYSTONE_USERNAME: 'leasehold',
          LEASEHOLD_KEYSTONE_PASSWORD: 'leasehold-secret',
          LEASEHOLD_KEYSTONE_CACHE_SECONDS: String(CACHE_SECONDS),
        },
      });
    });

    afterAll(async () => {
      await system?.stop();
    });

    const status = async (token: string): Promise<number> =>
      (await fetch(`${system.url}/v1/leases`, { headers: { 'X-Auth-Token': token } })).status;

    it('a token that worked gets 401 once Keystone revoked it (DELETE /v3/auth/tokens), before the cache time has passed', async () => {
      const { token } = await keystoneToken('alice');
      expect(await status(token)).toBe(200);
      expect(await status(token)).toBe(200);

      const revoked = await fetch(`${KEYSTONE}/auth/tokens`, {
        method: 'DELETE',
        headers: { 'X-Auth-Token': token, 'X-Subject-Token': token },
      });
      expect(revoked.status).toBe(204);
      const revokedAt = Date.now();
      const admin = (await keystoneToken('admin')).token;
      const keystoneSays = await fetch(`${KEYSTONE}/auth/tokens?nocatalog`, {
        headers: { 'X-Auth-Token': admin, 'X-Subject-Token': token },
      });
      expect(keystoneSays.status).toBe(404);

      const deadline = revokedAt + CACHE_SECONDS * 1000 + SLACK_MS;
      let last = await status(token);
      while (last !== 401 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        last = await status(token);
      }
      expect(last).toBe(401);
    });
  },
);
