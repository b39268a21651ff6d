/**
 * deploy/keystone-register.sh against the project's Keystone (scripts/services/keystone-up.sh, a Keystone of
 * this file's own on a free port, so that the shared one's catalog stays as the other Keystone tests expect):
 * the service and its three endpoints created, a second run changing nothing, a new URL updating them in place,
 * and the real openstack CLI finding Leasehold, served over TLS, through the catalog alone.
 * Skipped where Keystone is not installed (keystone-up.sh installs it; .ci/run runs it first).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type RunningSystem, freePort, startSystem } from '../helpers/system.js';
import { type TestCertificates, makeTestCertificates } from '../helpers/tls.js';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const INSTALLED = ['/usr/bin/keystone-manage', '/usr/bin/uwsgi', '/usr/bin/openstack'].every((path) => existsSync(path));

const run = (command: string, args: readonly string[], env: Record<string, string>): Promise<Run> =>
  new Promise((resolve) => {
    execFile(command, args, { cwd: ROOT, timeout: 300_000, env: { ...process.env, OS_CLOUD: '', ...env } }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
  });

const succeeded = (result: Run): string => {
  if (result.code !== 0) throw new Error(`exited ${result.code}: ${result.stderr || result.stdout}`);
  return result.stdout;
};

describe.skipIf(!INSTALLED)("deploy/keystone-register.sh on the project's Keystone", () => {
  let ksRoot: string;
  let admin: Record<string, string>;
  let leaseholdPort: number;
  let url: string;

  const register = (...args: string[]) => run('bash', ['deploy/keystone-register.sh', ...args], admin);
  const openstack = async (...args: string[]) => succeeded(await run('/usr/bin/openstack', args, admin));
  const catalogEntry = async () => JSON.parse(await openstack('catalog', 'show', 'reservation', '-f', 'json'));

  beforeAll(async () => {
    ksRoot = mkdtempSync(join(tmpdir(), 'leasehold-ks-register-'));
    leaseholdPort = await freePort();
    url = `https://127.0.0.1:${leaseholdPort}/v1`;
    const ksPort = String(await freePort());
    // keystone-up.sh seeds a `reservation` service of its own: deleted below, so that the script starts from none
    const up = await run('bash', ['scripts/services/keystone-up.sh'], { KS_ROOT: ksRoot, KS_PORT: ksPort });
    const keystoneUrl = succeeded(up).trim().split('\n').at(-1) ?? '';
    admin = {
      OS_AUTH_URL: keystoneUrl,
      OS_USERNAME: 'admin',
      OS_PASSWORD: 'admin',
      OS_PROJECT_NAME: 'admin',
      OS_USER_DOMAIN_NAME: 'Default',
      OS_PROJECT_DOMAIN_NAME: 'Default',
      OS_IDENTITY_API_VERSION: '3',
      OS_REGION_NAME: 'RegionOne',
    };
    await openstack('service', 'delete', 'reservation');
  }, 600_000);

  afterAll(async () => {
    if (ksRoot === undefined) return;
    await run('bash', ['scripts/services/keystone-down.sh'], { KS_ROOT: ksRoot });
    rmSync(ksRoot, { recursive: true, force: true });
  });

  it('creates the service `reservation` (named blazar) with public, internal and admin endpoints', async () => {
    const first = await register(url);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^service reservation: created \(blazar, [0-9a-f]{32}\)$/m);
    for (const endpoint of ['public', 'internal', 'admin']) expect(first.stdout).toContain(`endpoint ${endpoint}: created (${url})`);
    const entry = await catalogEntry();
    expect({ name: entry.name, type: entry.type }).toEqual({ name: 'blazar', type: 'reservation' });
    expect(entry.endpoints.map((e: any) => [e.interface, e.region, e.url]).sort()).toEqual(
      ['admin', 'internal', 'public'].map((i) => [i, 'RegionOne', url]),
    );
  }, 600_000);

  it('changes nothing when run again', async () => {
    const before = await catalogEntry();
    const again = await register(url);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`service reservation: exists (${before.id}, kept with its name)`);
    for (const endpoint of ['public', 'internal', 'admin']) expect(again.stdout).toContain(`endpoint ${endpoint}: unchanged (${url})`);
    expect(await catalogEntry()).toEqual(before);
  }, 600_000);

  it('refuses a URL that does not end in /v1, and a region Keystone does not have, creating nothing', async () => {
    const noVersion = await register(`https://127.0.0.1:${leaseholdPort}`);
    expect(noVersion.code).toBe(2);
    expect(noVersion.stderr).toContain('is not an http(s) URL ending in /v1');
    const region = await register('--region', 'RegionTypo', url);
    expect(region.code).toBe(1);
    expect(region.stderr).toContain('Keystone has no region RegionTypo');
    expect((await catalogEntry()).endpoints).toHaveLength(3);
  }, 600_000);

  it('lets the real openstack CLI find Leasehold over TLS through the catalog, with no endpoint given', async () => {
    let certificates: TestCertificates | undefined;
    let system: RunningSystem | undefined;
    try {
      certificates = makeTestCertificates();
      system = await startSystem({
        port: leaseholdPort,
        apps: ['api', 'projector'],
        env: {
          LEASEHOLD_TLS_CERT_FILE: certificates.certFile,
          LEASEHOLD_TLS_KEY_FILE: certificates.keyFile,
          LEASEHOLD_AUTH: 'keystone',
          LEASEHOLD_KEYSTONE_URL: admin.OS_AUTH_URL ?? '',
          LEASEHOLD_KEYSTONE_USERNAME: 'leasehold',
          LEASEHOLD_KEYSTONE_PASSWORD: 'leasehold-secret',
        },
      });
      const alice = { ...admin, OS_USERNAME: 'alice', OS_PASSWORD: 'alice-secret', OS_PROJECT_NAME: 'project-a' };
      const list = await run(
        '/usr/bin/openstack',
        ['--os-cacert', certificates.caFile, 'reservation', 'lease', 'list', '-f', 'json'],
        alice,
      );
      expect(list.stderr).toBe('');
      expect(JSON.parse(succeeded(list))).toEqual([]);
    } finally {
      await system?.stop();
      if (certificates !== undefined) rmSync(certificates.dir, { recursive: true, force: true });
    }
  }, 600_000);

  it('moves the endpoints to a new URL in place, keeping the service', async () => {
    const before = await catalogEntry();
    const moved = `https://leasehold.example.org:1234/v1`;
    const update = await register('--admin-url', `http://10.0.0.5:1234/v1`, moved);
    expect(update.code).toBe(0);
    expect(update.stdout).toContain(`endpoint public: updated (${url} -> ${moved})`);
    expect(update.stdout).toContain(`endpoint admin: updated (${url} -> http://10.0.0.5:1234/v1)`);
    const after = await catalogEntry();
    expect(after.id).toBe(before.id);
    expect(after.endpoints.map((e: any) => [e.interface, e.id, e.url]).sort()).toEqual(
      before.endpoints.map((e: any) => [e.interface, e.id, e.interface === 'admin' ? 'http://10.0.0.5:1234/v1' : moved]).sort(),
    );
  }, 600_000);
});
