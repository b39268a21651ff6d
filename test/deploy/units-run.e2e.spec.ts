/**
 * What the systemd units run, run without systemd (the test machine has none; issue 36, line 6). Each
 * deploy/systemd service, in the order its `After=` gives, is started as its `ExecStart=` says (/usr/bin/node
 * and the built entry), in its `WorkingDirectory=`, with what systemd would put in its environment: the
 * `Environment=` line, then the `EnvironmentFile=` over it. /opt/leasehold is this checkout, /var/lib/leasehold
 * (the `StateDirectory=`) a temp folder, /etc/leasehold/leasehold.env the example with its Keystone settings
 * replaced by static tokens, its ports by free ones and its certificate by a test CA's. Not applied: `User=`
 * and the sandboxing (no systemd here to set them up; the processes run as the test's user).
 *
 * Then docs/deployment.md's steps on them: every /readyz answers 200 over HTTPS, a host and a lease are created
 * and read back, the reactor starts the lease, `leasehold backup` (through the document's own alias) copies
 * the log while they run and `leasehold verify` passes; SIGTERM, in the reverse order, ends each cleanly (as
 * systemd counts it) within its `TimeoutStopSec=`;
 * the backup restores into an empty data folder and the units started on it show the lease.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinnedHost } from '../helpers/api-fixtures.js';
import { blazarDate } from '../helpers/http.js';
import { ROOT, eventually, freePort } from '../helpers/system.js';
import { type TestCertificates, makeTestCertificates } from '../helpers/tls.js';
import { UNITS, environmentOf, parseEnvironmentFile, setting, startOrder, timeSpanMs } from './systemd-unit.js';

const TOKEN = 'deploy-admin-token';
const HOST = 'deploy-host';
const SLOW = 180_000;
const VERIFIED = /^ok: the live read model matches the log replayed at position \d+/m;

/** Where the units and docs/deployment.md put things, and where this test puts them instead. */
interface Machine {
  readonly dataDir: string;
  readonly envFile: string;
}

const onThisMachine = (text: string, machine: Machine): string =>
  text
    .replaceAll('/opt/leasehold', ROOT)
    .replaceAll('/var/lib/leasehold', machine.dataDir)
    .replaceAll('/etc/leasehold/leasehold.env', machine.envFile);

/** What systemd sets before `Environment=` for a service of `User=leasehold` (its home is the data folder). */
const systemdEnvironment = (machine: Machine): Record<string, string> => ({
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin',
  LANG: 'C.UTF-8',
  HOME: machine.dataDir,
  STATE_DIRECTORY: machine.dataDir,
});

/**
 * The example environment file with what cannot run here replaced: each replaced name must be in the example,
 * so that a renamed setting fails here rather than leaving the example's value in force.
 */
const testEnvironmentFile = (replaced: Record<string, string>, added: Record<string, string>): string => {
  const example = parseEnvironmentFile(readFileSync(join(UNITS, 'leasehold.env.example'), 'utf8'));
  for (const name of Object.keys(replaced)) expect(example, `the example sets ${name}`).toHaveProperty(name);
  const kept = Object.entries(example).filter(([name]) => !name.startsWith('LEASEHOLD_KEYSTONE_'));
  const settings = { ...Object.fromEntries(kept), ...replaced, ...added };
  return Object.entries(settings)
    .map(([name, value]) => `${name}=${value}\n`)
    .join('');
};

interface Started {
  readonly unit: string;
  readonly child: ChildProcess;
  readonly output: () => string;
}

/** Starts one service as systemd would (Type=exec: started once the binary runs). */
const startUnit = async (unit: string, machine: Machine): Promise<Started> => {
  const [command = '', ...args] = onThisMachine(setting(unit, 'ExecStart') ?? '', machine).split(' ');
  const unitEnvironment = Object.entries(environmentOf(unit)).map(([name, value]) => [name, onThisMachine(value, machine)]);
  const envFile = onThisMachine(setting(unit, 'EnvironmentFile') ?? '', machine);
  const env = {
    ...systemdEnvironment(machine),
    ...Object.fromEntries(unitEnvironment),
    ...parseEnvironmentFile(readFileSync(envFile, 'utf8')),
  };
  const cwd = onThisMachine(setting(unit, 'WorkingDirectory') ?? '', machine);
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise((resolve, reject) => child.once('spawn', resolve).once('error', reject));
  return { unit, child, output: () => output };
};

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Resolves with the exit, or with null when `timeoutMs` passes first. */
const exitWithin = (child: ChildProcess, timeoutMs: number): Promise<Exit | null> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
    const timer = setTimeout(() => resolve(null), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });

/**
 * A clean exit as systemd counts it (systemd.service(5), `Restart=`): code 0 or, for a `Type=` other than oneshot,
 * death by SIGHUP, SIGINT, SIGTERM or SIGPIPE. The API raises the SIGTERM again once closed; anything else, or no exit
 * within `TimeoutStopSec=` (systemd's SIGKILL), is a failure.
 */
const CLEAN_SIGNALS: readonly string[] = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGPIPE'];
const exitedCleanly = (unit: string, exit: Exit | null): boolean =>
  exit !== null && (exit.code === 0 || (setting(unit, 'Type') !== 'oneshot' && CLEAN_SIGNALS.includes(exit.signal ?? '')));

interface Answer {
  readonly status: number;
  readonly body: any;
}

/** One HTTPS request trusting only the test CA, as `curl --cacert ca.pem` does. */
const call = (ca: Buffer, url: string, method = 'GET', body?: unknown): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const headers = { 'X-Auth-Token': TOKEN, 'Content-Type': 'application/json', Accept: 'application/json' };
    const sent = request(url, { method, ca, headers }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text.startsWith('{') ? JSON.parse(text) : text }));
    });
    sent.on('error', reject);
    sent.end(body === undefined ? undefined : JSON.stringify(body));
  });

/** docs/deployment.md's `alias leasehold='sudo -u leasehold ...'`, without the sudo (one user here). */
const documentedCli = (machine: Machine, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
  const doc = readFileSync(join(ROOT, 'docs', 'deployment.md'), 'utf8');
  const alias = /^alias leasehold='sudo -u leasehold (.+)'$/m.exec(doc)?.[1];
  if (alias === undefined) throw new Error("docs/deployment.md defines no `alias leasehold='sudo -u leasehold ...'`");
  return new Promise((resolve) => {
    execFile(
      '/bin/sh',
      ['-c', `${onThisMachine(alias, machine)} "$@"`, 'leasehold', ...args],
      { timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
  });
};

describe('the systemd units, run as their ExecStart says, through docs/deployment.md', () => {
  let work: string;
  let certificates: TestCertificates;
  let ca: Buffer;
  let ports: Record<'api' | 'projector' | 'reactor' | 'publisher', number>;
  let machine: Machine;
  let running: Started[] = [];
  let leaseId: string;
  let backup: string;

  const healthUrl = (unit: string): string => {
    const app = /^leasehold-([a-z]+)\.service$/.exec(unit)?.[1] as keyof typeof ports;
    return `https://127.0.0.1:${ports[app]}/readyz`;
  };
  const apiUrl = (path: string): string => `https://127.0.0.1:${ports.api}${path}`;

  /** Every service in the target's order, then each one's /readyz until it answers 200. */
  const startAll = async (on: Machine): Promise<void> => {
    for (const unit of startOrder()) running.push(await startUnit(unit, on));
    for (const started of running) {
      await eventually(
        async () => {
          if (started.child.exitCode !== null) throw new Error(`${started.unit} exited ${started.child.exitCode}:\n${started.output()}`);
          const ready = await call(ca, healthUrl(started.unit)).catch(() => undefined);
          return ready?.status === 200 ? ready : undefined;
        },
        60_000,
        `${started.unit} /readyz`,
      );
    }
  };

  /** `systemctl stop leasehold.target`: SIGTERM to each in the reverse order, waiting for each to exit. */
  const stopAll = async (): Promise<{ unit: string; exit: Exit | null; limitMs: number }[]> => {
    const stopped = [];
    for (const started of [...running].reverse()) {
      const limitMs = timeSpanMs(setting(started.unit, 'TimeoutStopSec') ?? '90s');
      started.child.kill('SIGTERM');
      stopped.push({ unit: started.unit, exit: await exitWithin(started.child, limitMs), limitMs });
    }
    running = [];
    return stopped;
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'leasehold-units-run-'));
    certificates = makeTestCertificates();
    ca = readFileSync(certificates.caFile);
    ports = { api: await freePort(), projector: await freePort(), reactor: await freePort(), publisher: await freePort() };
    const tokens = join(work, 'tokens.json');
    writeFileSync(tokens, JSON.stringify({ [TOKEN]: { user_id: 'deploy-admin', project_id: 'deploy-project', roles: ['admin'] } }));
    machine = { dataDir: mkdtempSync(join(work, 'state-')), envFile: join(work, 'leasehold.env') };
    const replaced = {
      LEASEHOLD_HOST: '127.0.0.1',
      LEASEHOLD_PORT: String(ports.api),
      LEASEHOLD_PROJECTOR_HEALTH_PORT: String(ports.projector),
      LEASEHOLD_REACTOR_HEALTH_PORT: String(ports.reactor),
      LEASEHOLD_PUBLISHER_HEALTH_PORT: String(ports.publisher),
      LEASEHOLD_TLS_CERT_FILE: certificates.certFile,
      LEASEHOLD_TLS_KEY_FILE: certificates.keyFile,
      LEASEHOLD_AUTH: 'static',
    };
    // webhooks give the publisher work: with no channel it exits 0 at once (the last test)
    writeFileSync(machine.envFile, testEnvironmentFile(replaced, { LEASEHOLD_TOKENS_FILE: tokens, LEASEHOLD_WEBHOOKS: 'on' }));
    writeFileSync(join(work, 'no-channel.env'), testEnvironmentFile(replaced, { LEASEHOLD_TOKENS_FILE: tokens }));
  });

  afterAll(async () => {
    for (const started of running) started.child.kill('SIGKILL');
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
    if (certificates !== undefined) rmSync(certificates.dir, { recursive: true, force: true });
  });

  it(
    'start in the order projector, reactor, API, publisher, and each /readyz answers 200 over HTTPS',
    async () => {
      expect(startOrder()).toEqual(['projector', 'reactor', 'api', 'publisher'].map((app) => `leasehold-${app}.service`));
      await startAll(machine);
      const version = await call(ca, apiUrl('/'));
      expect(version.status).toBe(300);
      expect(JSON.stringify(version.body)).toContain(`https://127.0.0.1:${ports.api}/v1`);
    },
    SLOW,
  );

  it(
    'take a host and a lease through the API, read it back, and the reactor starts it',
    async () => {
      expect((await call(ca, apiUrl('/v1/os-hosts'), 'POST', { name: HOST })).status).toBe(201);
      const created = await call(ca, apiUrl('/v1/leases'), 'POST', {
        name: 'deploy-lease',
        start_date: 'now',
        end_date: blazarDate(120),
        reservations: [pinnedHost(HOST)],
        events: [],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      leaseId = created.body.lease.id;
      const read = await call(ca, apiUrl(`/v1/leases/${leaseId}`));
      expect(read.status).toBe(200);
      expect(read.body.lease.name).toBe('deploy-lease');
      await eventually(
        async () => ((await call(ca, apiUrl(`/v1/leases/${leaseId}`))).body.lease.status === 'ACTIVE' ? true : undefined),
        30_000,
        'the reactor to start the lease',
      );
    },
    SLOW,
  );

  it(
    '`leasehold backup` (the documented alias) copies the log while they run; verify passes',
    async () => {
      backup = join(work, 'ledger.backup');
      const result = await documentedCli(machine, 'backup', backup);
      expect(result.code, result.stderr).toBe(0);
      const [, events = '0'] = /^backed up (\d+) events, up to position \d+, to /m.exec(result.stdout) ?? [];
      // the host, the lease and its start at least
      expect(Number(events)).toBeGreaterThanOrEqual(3);
      const verified = await documentedCli(machine, 'verify');
      expect(verified.code, verified.stderr).toBe(0);
      expect(verified.stdout).toMatch(VERIFIED);
      for (const started of running) expect(started.child.exitCode, `${started.unit} still runs`).toBeNull();
    },
    SLOW,
  );

  it(
    'stop in the reverse order on SIGTERM, each exiting cleanly within its TimeoutStopSec',
    async () => {
      const stopped = await stopAll();
      expect(stopped.map(({ unit }) => unit)).toEqual([...startOrder()].reverse());
      expect(stopped.filter(({ unit, exit }) => !exitedCleanly(unit, exit))).toEqual([]);
    },
    SLOW,
  );

  it(
    'the backup restores into an empty data folder, and the units started on it show the lease',
    async () => {
      const restoredMachine = { ...machine, dataDir: mkdtempSync(join(work, 'restored-')) };
      const restored = await documentedCli(restoredMachine, 'restore', backup);
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stdout).toMatch(VERIFIED);
      await startAll(restoredMachine);
      const lease = await call(ca, apiUrl(`/v1/leases/${leaseId}`));
      expect(lease.status).toBe(200);
      expect(lease.body.lease.status).toBe('ACTIVE');
      expect((await stopAll()).filter(({ unit, exit }) => !exitedCleanly(unit, exit))).toEqual([]);
    },
    SLOW,
  );

  it(
    'the publisher with no outbound channel exits 0 at once (Restart=on-failure leaves it stopped)',
    async () => {
      expect(setting('leasehold-publisher.service', 'Restart')).toBe('on-failure');
      const publisher = await startUnit('leasehold-publisher.service', { ...machine, envFile: join(work, 'no-channel.env') });
      running.push(publisher);
      expect(await exitWithin(publisher.child, 20_000), publisher.output()).toEqual({ code: 0, signal: null });
      running = [];
    },
    SLOW,
  );
});
