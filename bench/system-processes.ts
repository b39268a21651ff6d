import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

/** The repository (holding package.json and dist/), from bench/ or dist/bench/. */
const findRoot = (from: string): string => (existsSync(join(from, 'package.json')) ? from : findRoot(dirname(from)));
const ROOT = findRoot(import.meta.dirname);

/**
 * A port above the ephemeral range (ports below 61000 can be held by outgoing connections here) that
 * nothing listens on. Never the same one twice in a process (three drawn for one system could collide),
 * and each vitest worker draws from its own slice, so two files starting systems at once cannot pick
 * the same port before either binds it. The slices avoid the fixed ports of the test servers (61xxx:
 * the OpenStack control plane; 62234, 62357, 62432: Leasehold behind Keystone, Keystone, PostgreSQL).
 */
export const freePort = async (): Promise<number> => {
  const [first, size] = portSlice();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = first + Math.floor(Math.random() * size);
    if (handedOut.has(port)) continue;
    const ok = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (ok) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free port found');
};

const handedOut = new Set<number>();

/** [first port, how many]: 63000-63999 split among vitest's workers; 64000-64999 outside vitest (bench, soak). */
const portSlice = (): readonly [number, number] => {
  const worker = Number(process.env.VITEST_POOL_ID);
  if (!Number.isInteger(worker) || worker < 1) return [64_000, 1_000];
  const slices = 4;
  return [63_000 + ((worker - 1) % slices) * 250, 250];
};

export type App = 'api' | 'projector' | 'reactor';

export const APPS: readonly App[] = ['api', 'projector', 'reactor'];

const ENTRY: Readonly<Record<App, string>> = {
  api: 'dist/apps/api/src/main.js',
  projector: 'dist/apps/projector/src/main.js',
  reactor: 'dist/apps/reactor/src/main.js',
};

/** An exit the test did not cause (not a SIGKILL or SIGTERM it sent): a process that crashed. */
export interface UnexpectedExit {
  readonly app: App;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The built api, projector and reactor as three processes on one data folder (run `npm run build`
 * first), each on fixed ports so that it can be killed and started again on its own: the handle on
 * real processes of the fault-injection tests and the soak. Keeps each process's output, and every
 * exit it did not cause.
 */
export class SystemProcesses {
  readonly unexpectedExits: UnexpectedExit[] = [];
  private readonly children = new Map<App, ChildProcess>();
  private readonly expected = new Set<ChildProcess>();
  private readonly logs = new Map<App, string>();

  private constructor(
    readonly dataDir: string,
    readonly ports: Readonly<Record<App, number>>,
    private readonly env: Readonly<Record<string, string>>,
  ) {}

  static async start(dataDir: string, env: Readonly<Record<string, string>> = {}): Promise<SystemProcesses> {
    const ports = { api: await freePort(), projector: await freePort(), reactor: await freePort() };
    const system = new SystemProcesses(dataDir, ports, env);
    // the projector and the reactor first, as the launcher does
    for (const app of ['projector', 'reactor', 'api'] as const) await system.startApp(app);
    return system;
  }

  get url(): string {
    return `http://127.0.0.1:${this.ports.api}`;
  }

  healthUrl(app: App): string {
    return `http://127.0.0.1:${this.ports[app]}`;
  }

  /** The process id of the app's current run (for its memory, say), or null when it is not running. */
  pid(app: App): number | null {
    return this.isRunning(app) ? (this.children.get(app)?.pid ?? null) : null;
  }

  isRunning(app: App): boolean {
    const child = this.children.get(app);
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** The app's output so far (every run of it), for failure messages. */
  output(app: App): string {
    return this.logs.get(app) ?? '';
  }

  /** Starts the app and resolves once it answers its /healthz. */
  async startApp(app: App): Promise<void> {
    if (this.isRunning(app)) throw new Error(`${app} is already running`);
    const env = {
      ...process.env,
      LEASEHOLD_DATA_DIR: this.dataDir,
      LEASEHOLD_PORT: String(this.ports.api),
      LEASEHOLD_PROJECTOR_HEALTH_PORT: String(this.ports.projector),
      LEASEHOLD_REACTOR_HEALTH_PORT: String(this.ports.reactor),
      LEASEHOLD_ACCESS_LOG: '0',
      // the freepool watch writes to the log on its own clock, which the ledger checks do not expect
      LEASEHOLD_FREEPOOL_WATCH_SECONDS: '0',
      ...this.env,
    };
    const child = spawn(process.execPath, [join(ROOT, ENTRY[app])], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const append = (chunk: Buffer): void => {
      this.logs.set(app, this.output(app) + chunk.toString());
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    child.on('exit', (code, signal) => {
      if (!this.expected.has(child)) this.unexpectedExits.push({ app, code, signal });
    });
    this.children.set(app, child);
    await this.waitHealthy(app, child);
  }

  /** SIGKILL: no shutdown code runs, as when the machine or the OOM killer stops it. */
  kill(app: App): Promise<void> {
    return this.signal(app, 'SIGKILL');
  }

  /** SIGTERM: the graceful stop. */
  stopApp(app: App): Promise<void> {
    return this.signal(app, 'SIGTERM');
  }

  async stop(): Promise<void> {
    await Promise.all(APPS.map((app) => this.stopApp(app)));
  }

  private async signal(app: App, signal: NodeJS.Signals): Promise<void> {
    const child = this.children.get(app);
    if (child === undefined || !this.isRunning(app)) return;
    this.expected.add(child);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }

  private async waitHealthy(app: App, child: ChildProcess): Promise<void> {
    const url = `${this.healthUrl(app)}/healthz`;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${app} exited while starting:\n${this.output(app)}`);
      try {
        if ((await fetch(url, { signal: AbortSignal.timeout(2_000) })).status === 200) return;
      } catch {
        // not listening yet
      }
      await sleep(50);
    }
    throw new Error(`${app} did not answer ${url}:\n${this.output(app)}`);
  }
}
