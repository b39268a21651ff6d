import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { AttackerMessage } from './noisy-attacker.js';
import type { AttackOutcome, AttackPlan, RunningAttack } from './noisy-attacks.js';
import type { Deliveries, Timed } from './noisy-victim.js';
import { ROOT } from './system.js';

/**
 * The attacker's side of the noisy-neighbour suite as the test sees it, the API's memory, and the
 * figures. Attacks run in a child process of their own, not in this one nor in a worker thread of
 * it: this process times the victim, and an attack's client work (building and sending 99 MB frames,
 * taking in megabytes of GraphQL answers and thousands of subscription messages) would otherwise
 * hold its event loop, or stop it for garbage collection, and show up as the victim's latency. A
 * process is also ended whole when an attack is stopped, sockets and timers with it.
 */
export class Attackers {
  private constructor(
    private readonly dir: string,
    private readonly script: string,
  ) {}

  /** Bundles noisy-attacker.ts for node (the tests run from TypeScript sources; a forked node runs JavaScript). */
  static async build(): Promise<Attackers> {
    const dir = mkdtempSync(join(tmpdir(), 'leasehold-noisy-'));
    const script = join(dir, 'attacker.cjs');
    await build({
      entryPoints: [join(ROOT, 'test/helpers/noisy-attacker.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile: script,
      // ws's optional native speed-ups, which it does without
      external: ['bufferutil', 'utf-8-validate'],
      logLevel: 'error',
    });
    return new Attackers(dir, script);
  }

  /** Starts the attack in a new process; resolves once it is under way. */
  async start(plan: AttackPlan): Promise<RunningAttack> {
    const child = fork(this.script, [], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`the ${plan.kind} attacker exited (${code}) before answering:\n${output}`))),
    );
    exited.catch(() => undefined);
    child.send(plan);
    await Promise.race([nextMessage(child), exited]);
    return {
      stop: async () => {
        child.send('stop');
        const message = await Promise.race([nextMessage(child), exited, timeout(30_000, `the ${plan.kind} attacker to stop`)]).finally(() =>
          child.kill('SIGKILL'),
        );
        return (message as { outcome: AttackOutcome }).outcome;
      },
    };
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const nextMessage = (child: ChildProcess): Promise<AttackerMessage> =>
  new Promise((resolve) => child.once('message', (message) => resolve(message as AttackerMessage)));

const timeout = (ms: number, what: string): Promise<never> =>
  new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms).unref());

/** The parent of a process, from /proc/<pid>/stat (`pid (name) state ppid ...`); null once it is gone. */
const parentOf = (pid: string): string | null => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1] ?? null;
  } catch {
    return null;
  }
};

/** The pid of the one API process this process started (its child, or under the launcher its grandchild) from this build. */
export const apiPid = (): number => {
  const entry = join(ROOT, 'dist/apps/api/src/main.js');
  const mine = (pid: string): boolean => {
    const parent = parentOf(pid);
    return parent === String(process.pid) || (parent !== null && parentOf(parent) === String(process.pid));
  };
  const found = readdirSync('/proc').filter((pid) => /^\d+$/.test(pid) && mine(pid) && commandOf(pid).includes(entry));
  if (found.length !== 1) throw new Error(`expected one API process started here, found ${found.length}`);
  return Number(found[0]);
};

const commandOf = (pid: string): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
};

/** The process's resident memory in MB, from /proc/<pid>/status. */
export const rssMb = (pid: number): number => {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (line === null) throw new Error(`no VmRSS for process ${pid}`);
  return Math.round(Number(line[1]) / 1024);
};

/** The highest resident memory the process reaches while watched (sampled every 100 ms). */
export const watchPeakRss = (pid: number): { stop(): number } => {
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch {
      // the process is gone (a test that failed stopped the system before this watch)
      clearInterval(timer);
    }
  }, 100).unref();
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, rssMb(pid));
    },
  };
};

/** The nearest-rank percentile (0-100) of the values, rounded to ms; 0 when there are none. */
export const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0);
};

/** What one attack did to the victim and the API, and what the attacker was answered. */
export interface Figures {
  readonly victim: { readonly n: number; readonly failed: number; readonly p50: number; readonly p95: number; readonly max: number };
  /** The victim's p95 per kind of request (show, list, create, rename, delete). */
  readonly byRequest: Readonly<Record<string, number>>;
  readonly webhook: Deliveries;
  /** One per victim stream open during the attack (the standing one first). */
  readonly streams: readonly Deliveries[];
  /** The API's resident memory (MB) before the attack, at its highest during it, and once it settled. */
  readonly rss: { readonly before: number; readonly peak: number; readonly after: number };
  readonly attacker: AttackOutcome | null;
  /** How long the API took to answer quickly again once the attack stopped (null: it did not). */
  readonly settledMs: number | null;
}

export const victimFigures = (timed: readonly Timed[]): Pick<Figures, 'victim' | 'byRequest'> => {
  const ms = (of: readonly Timed[]): number[] => of.map((t) => t.ms);
  const ops = [...new Set(timed.map((t) => t.op))];
  return {
    victim: {
      n: timed.length,
      failed: timed.filter((t) => !t.ok).length,
      p50: percentile(ms(timed), 50),
      p95: percentile(ms(timed), 95),
      max: percentile(ms(timed), 100),
    },
    byRequest: Object.fromEntries(ops.map((op) => [op, percentile(ms(timed.filter((t) => t.op === op)), 95)])),
  };
};

/** The sum of an outcome's counts whose names match. */
export const outcomeCount = (outcome: AttackOutcome | null, pattern: RegExp): number =>
  Object.entries(outcome ?? {})
    .filter(([what]) => pattern.test(what))
    .reduce((sum, [, n]) => sum + n, 0);

const deliveryFigures = (label: string, deliveries: Deliveries): string =>
  `${label} n=${deliveries.latencies.length} max=${percentile(deliveries.latencies, 100)} ms` +
  (deliveries.missing > 0 ? ` MISSING ${deliveries.missing}` : '');

/** One attack's figures on one line: the victim's latencies, its events, the API's memory, the attacker's answers. */
export const figuresLine = (name: string, figures: Figures): string => {
  const { victim: v, rss } = figures;
  return [
    `${name}: victim n=${v.n} p50=${v.p50} p95=${v.p95} max=${v.max} ms${v.failed > 0 ? ` FAILED ${v.failed}` : ''}`,
    `p95 by request ${Object.entries(figures.byRequest)
      .map(([op, ms]) => `${op}=${ms}`)
      .join(' ')}`,
    deliveryFigures('webhook', figures.webhook),
    ...figures.streams.map((stream, i) => deliveryFigures(i === 0 ? 'stream' : `stream#${i + 1}`, stream)),
    `API RSS before=${rss.before} peak=${rss.peak} after=${rss.after} MB`,
    figures.settledMs === null ? 'NOT settled' : `settled in ${figures.settledMs} ms`,
    `attacker: ${
      figures.attacker === null
        ? 'none'
        : Object.entries(figures.attacker)
            .map(([what, count]) => `${what}: ${count}`)
            .join(', ')
    }`,
  ].join(' | ');
};

/**
 * Waits until the API answers `probe` quickly (PROBES_IN_A_ROW answers under SETTLED_MS running), at
 * most `timeoutMs`: the previous attack's work (a query the server still runs, deliveries it still
 * retries) must not be counted against the next. Resolves with how long that took; rejects past the deadline.
 */
export const settle = async (probe: () => Promise<unknown>, timeoutMs: number): Promise<number> => {
  const started = performance.now();
  for (let quick = 0; quick < PROBES_IN_A_ROW;) {
    if (performance.now() - started > timeoutMs) throw new Error(`the API did not settle within ${timeoutMs} ms`);
    const sent = performance.now();
    await probe();
    quick = performance.now() - sent < SETTLED_MS ? quick + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Math.round(performance.now() - started);
};

const PROBES_IN_A_ROW = 3;
const SETTLED_MS = 50;
