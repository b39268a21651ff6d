/**
 * deploy/systemd: one unit per process the launcher runs, and leasehold.target. `systemd-analyze verify`
 * (offline: no systemd needs to run) must print nothing about them; its unit path is the units' folder and
 * the distribution's units only, so that units installed on this machine do not speak in the check.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { variablesRead } from '../helpers/configuration-variables.js';
import { ROOT } from '../helpers/system.js';
import { UNITS, services, setting, unitFiles } from './systemd-unit.js';

const SYSTEMD_ANALYZE = '/usr/bin/systemd-analyze';
const NODE = '/usr/bin/node';

/** The processes the launcher runs (`npm start`): apps/launcher/main.ts names each entry. */
const launchedApps = (): string[] =>
  [...readFileSync(join(ROOT, 'apps', 'launcher', 'main.ts'), 'utf8').matchAll(/'apps\/([a-z]+)\/src\/main\.js'/g)].map(
    ([, app]) => app ?? '',
  );

const verify = (dir: string, files: readonly string[]): Promise<{ code: number; stderr: string }> =>
  new Promise((resolve) => {
    execFile(
      SYSTEMD_ANALYZE,
      ['verify', ...files.map((file) => join(dir, file))],
      { env: { ...process.env, SYSTEMD_UNIT_PATH: `${dir}:/usr/lib/systemd/system`, SYSTEMD_LOG_COLOR: '0' } },
      (error, _stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stderr }),
    );
  });

const HARDENING: Readonly<Record<string, string>> = {
  NoNewPrivileges: 'yes',
  ProtectSystem: 'strict',
  ProtectHome: 'yes',
  PrivateTmp: 'yes',
  PrivateDevices: 'yes',
  ProtectKernelTunables: 'yes',
  ProtectKernelModules: 'yes',
  ProtectKernelLogs: 'yes',
  ProtectControlGroups: 'yes',
  RestrictAddressFamilies: 'AF_INET AF_INET6 AF_UNIX',
  SystemCallFilter: '@system-service',
  CapabilityBoundingSet: '',
  LockPersonality: 'yes',
  MemoryDenyWriteExecute: 'no',
};

describe.skipIf(!existsSync(SYSTEMD_ANALYZE))('the systemd units (deploy/systemd)', () => {
  let dir: string;

  beforeAll(() => {
    // the units name /usr/bin/node; verify wants the binary to exist, so the copies name the node running this test
    dir = mkdtempSync(join(tmpdir(), 'leasehold-units-'));
    for (const file of unitFiles()) {
      writeFileSync(join(dir, file), readFileSync(join(UNITS, file), 'utf8').replaceAll(`${NODE} `, `${process.execPath} `));
    }
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('pass `systemd-analyze verify` without a single warning', async () => {
    const result = await verify(dir, unitFiles());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('would fail on a misspelt setting (the check above can fail)', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'leasehold-units-bad-'));
    try {
      for (const file of unitFiles()) copyFileSync(join(dir, file), join(bad, file));
      writeFileSync(join(bad, 'leasehold-api.service'), `${readFileSync(join(dir, 'leasehold-api.service'), 'utf8')}ProtectSytem=strict\n`);
      const result = await verify(bad, ['leasehold-api.service']);
      expect(result.stderr).toMatch(/Unknown key.*ProtectSytem/);
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });

  it('run every process the launcher runs, each from its built entry, and the target wants them all', () => {
    const apps = launchedApps();
    expect(apps.sort()).toEqual(['api', 'projector', 'publisher', 'reactor']);
    expect(services().sort()).toEqual(apps.map((app) => `leasehold-${app}.service`).sort());
    for (const app of apps) {
      expect(setting(`leasehold-${app}.service`, 'ExecStart')).toBe(`${NODE} /opt/leasehold/dist/apps/${app}/src/main.js`);
      expect(existsSync(join(ROOT, 'apps', app, 'src', 'main.ts'))).toBe(true);
    }
    expect(setting('leasehold.target', 'Wants')?.split(' ').sort()).toEqual(services().sort());
    expect(setting('leasehold.target', 'WantedBy')).toBe('multi-user.target');
  });

  it.each(['api', 'projector', 'reactor', 'publisher'])(
    'leasehold-%s: dedicated user, shared data folder, env file, restarts, hardening',
    (app) => {
      const unit = `leasehold-${app}.service`;
      expect(setting(unit, 'User')).toBe('leasehold');
      expect(setting(unit, 'DynamicUser')).toBe('no');
      expect(setting(unit, 'StateDirectory')).toBe('leasehold');
      expect(setting(unit, 'Environment')).toContain('LEASEHOLD_DATA_DIR=/var/lib/leasehold');
      expect(setting(unit, 'EnvironmentFile')).toBe('/etc/leasehold/leasehold.env');
      expect(setting(unit, 'Restart')).toBe('on-failure');
      expect(setting(unit, 'StartLimitBurst')).toBeDefined();
      expect(setting(unit, 'PartOf')).toBe('leasehold.target');
      for (const [key, value] of Object.entries(HARDENING)) expect(setting(unit, key), `${unit} ${key}`).toBe(value);
      // the one relaxation says why
      expect(readFileSync(join(UNITS, unit), 'utf8')).toMatch(/# No: V8 compiles JavaScript[^\n]*\n(#[^\n]*\n)*MemoryDenyWriteExecute=no/);
    },
  );

  it("start in the launcher's order (projector, reactor, API, publisher) and so stop in the reverse", () => {
    const after = (app: string): string[] => (setting(`leasehold-${app}.service`, 'After') ?? '').split(' ');
    expect(after('projector')).not.toContain('leasehold-api.service');
    expect(after('reactor')).toContain('leasehold-projector.service');
    expect(after('api')).toEqual(expect.arrayContaining(['leasehold-projector.service', 'leasehold-reactor.service']));
    expect(after('publisher')).toContain('leasehold-api.service');
    expect(launchedApps()).toEqual(['projector', 'reactor', 'api', 'publisher']);
  });
});

describe('the example environment file (deploy/systemd/leasehold.env.example)', () => {
  it('names only variables the processes read, set or commented out', () => {
    const text = readFileSync(join(UNITS, 'leasehold.env.example'), 'utf8');
    const named = [...text.matchAll(/^#? ?(LEASEHOLD_[A-Z0-9_]+)=/gm)].map(([, name]) => name ?? '');
    expect(named.length).toBeGreaterThan(10);
    const known = new Set(variablesRead());
    expect(named.filter((name) => !known.has(name))).toEqual([]);
    // the units set the data folder: a line here would move it out of the StateDirectory systemd creates
    expect(text).not.toMatch(/^LEASEHOLD_DATA_DIR=/m);
  });
});
