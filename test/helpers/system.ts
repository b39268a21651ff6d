import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../bench/system-processes.js';

export const ROOT = join(import.meta.dirname, '..', '..');

export { freePort } from '../../bench/system-processes.js';

export interface RunningSystem {
  readonly url: string;
  readonly port: number;
  /** /healthz and /readyz of the projector and the reactor (each on a port of its own). */
  readonly projectorHealthUrl: string;
  readonly reactorHealthUrl: string;
  readonly dataDir: string;
  readonly output: () => string;
  /**
   * Resolves once the projector's and the reactor's health servers (of those started) answer
   * /healthz. startSystem waits for the API only; a test that scrapes the others right away calls
   * this first (under load they may open their ports after the API does).
   */
  healthy(): Promise<void>;
  /** Sends a signal to every process (SIGKILL: a crash) without waiting for them. */
  signal(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

export interface SystemOptions {
  readonly dataDir?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Which processes to run (default: all three through the launcher). */
  readonly apps?: readonly ('api' | 'projector' | 'reactor')[];
  /** A fixed API port (e.g. the one a test Keystone's catalog points at); a free one otherwise. */
  readonly port?: number;
  /** The folder whose build runs (another release's, for an upgrade); this one by default. */
  readonly root?: string;
}

/** With TLS on, only whether the server answers: the tests that check its certificate do so with curl and the CLI. */
const statusOf = (url: string): Promise<number> =>
  url.startsWith('https:')
    ? new Promise((resolve, reject) => {
        get(url, { rejectUnauthorized: false }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        }).on('error', reject);
      })
    : fetch(url).then((response) => response.status);

const waitForHttp = async (url: string, child: ChildProcess[], log: () => string, status = 300): Promise<void> => {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.some((c) => c.exitCode !== null)) throw new Error(`system exited early:\n${log()}`);
    try {
      if ((await statusOf(url)) === status) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`system did not answer at ${url}:\n${log()}`);
};

const ENTRIES = {
  launcher: 'dist/apps/launcher/main.js',
  api: 'dist/apps/api/src/main.js',
  projector: 'dist/apps/projector/src/main.js',
  reactor: 'dist/apps/reactor/src/main.js',
} as const;

/** Starts the built system (run `npm run build` first) on a free port with its own data folder. */
export const startSystem = async (options: SystemOptions = {}): Promise<RunningSystem> => {
  const port = options.port ?? (await freePort());
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'leasehold-e2e-'));
  const [projectorHealthPort, reactorHealthPort] = [await freePort(), await freePort()];
  const env = {
    ...process.env,
    LEASEHOLD_PORT: String(port),
    LEASEHOLD_DATA_DIR: dataDir,
    LEASEHOLD_PROJECTOR_HEALTH_PORT: String(projectorHealthPort),
    LEASEHOLD_REACTOR_HEALTH_PORT: String(reactorHealthPort),
    // the freepool watch writes to the log on its own clock: on only where a test watches it
    LEASEHOLD_FREEPOOL_WATCH_SECONDS: '0',
    ...options.env,
  };
  let log = '';
  const entries = options.apps === undefined ? [ENTRIES.launcher] : options.apps.map((app) => ENTRIES[app]);
  const children = entries.map((entry) => {
    const root = options.root ?? ROOT;
    const child = spawn(process.execPath, [join(root, entry)], { env, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    return child;
  });
  // LEASEHOLD_TLS_*: the API and the health ports speak HTTPS only
  const scheme = (options.env?.LEASEHOLD_TLS_CERT_FILE ?? '') === '' ? 'http' : 'https';
  const url = `${scheme}://127.0.0.1:${port}`;
  const runs = (app: 'api' | 'projector' | 'reactor'): boolean => options.apps === undefined || options.apps.includes(app);
  if (runs('api')) await waitForHttp(`${url}/`, children, () => log);
  const projectorHealthUrl = `${scheme}://127.0.0.1:${env.LEASEHOLD_PROJECTOR_HEALTH_PORT}`;
  const reactorHealthUrl = `${scheme}://127.0.0.1:${env.LEASEHOLD_REACTOR_HEALTH_PORT}`;
  return {
    url,
    port,
    projectorHealthUrl,
    reactorHealthUrl,
    dataDir,
    output: () => log,
    healthy: async () => {
      if (runs('projector')) await waitForHttp(`${projectorHealthUrl}/healthz`, children, () => log, 200);
      if (runs('reactor')) await waitForHttp(`${reactorHealthUrl}/healthz`, children, () => log, 200);
    },
    signal: (signal) => {
      for (const child of children) if (child.exitCode === null) child.kill(signal);
    },
    stop: async () => {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            }),
        ),
      );
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
};

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export const eventually = async <T>(check: () => Promise<T | undefined>, timeoutMs = 10_000, what = 'condition'): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/** Runs the built API alone until it exits (or 20 s pass): for start-up checks that must refuse to run. */
export const runApiUntilExit = (env: Record<string, string>): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/apps/api/src/main.js')], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
