import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile } from './bench-http.js';
import { writeLedger } from './usage-report.js';

/**
 * `leasehold` run as an operator runs it, one process per command (issue 32; targets: help under 0.25 s, history under
 * 0.5 s, usage over 100,000 events under 2 s): the median of 5 wall times of `help`, of `history <lease>` on a small ledger
 * and of `usage` over a year of a generated log of 100,000 events, with `node -e 0` as the floor. Both ledgers are
 * bench/usage-report.ts's (1,000 hosts, then 5 events a lease): 100 leases, and 19,800. `node dist/bench/cli-startup.js`
 * runs it alone.
 */
const RUNS = 5;
const SMALL_LEASES = 100;
/** 1,000 host registrations and 19,800 x 5 lease events: 100,000 events. */
const USAGE_LEASES = 19_800;
const MAIN = new URL('../apps/cli/src/main.js', import.meta.url).pathname;

export interface CliStartupFigures {
  readonly node_floor_ms: number;
  readonly help_ms: number;
  readonly history_ms: number;
  readonly usage_events: number;
  readonly usage_ms: number;
  /** Wall times on a shared machine are worth what its load was. */
  readonly load_average: readonly number[];
}

/** Wall milliseconds of one process, from its start to its exit; it must succeed. */
const once = (args: readonly string[]): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = performance.now();
    execFile(process.execPath, [...args], { maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (error === null) resolve(performance.now() - started);
      else reject(new Error(`node ${args.join(' ')}: ${error.message}\n${stderr}`));
    });
  });

const median = async (args: readonly string[]): Promise<number> => {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) times.push(await once(args));
  return Math.round(percentile(times, 50));
};

const ledger = async (dir: string, name: string, leases: number): Promise<string> => {
  const dataDir = join(dir, name);
  mkdirSync(dataDir);
  await writeLedger(dataDir, leases);
  return dataDir;
};

export const runCliStartupBench = async (): Promise<CliStartupFigures> => {
  const dir = mkdtempSync(join(tmpdir(), 'leasehold-bench-cli-'));
  try {
    const small = await ledger(dir, 'small', SMALL_LEASES);
    const year = await ledger(dir, 'year', USAGE_LEASES);
    return {
      node_floor_ms: await median(['-e', '0']),
      help_ms: await median([MAIN, 'help']),
      history_ms: await median([MAIN, '--data-dir', small, 'history', 'bench-0']),
      usage_events: 1_000 + USAGE_LEASES * 5,
      usage_ms: await median([MAIN, '--data-dir', year, 'usage', '--from', '2025-01-01 00:00', '--to', '2026-01-01 00:00']),
      load_average: loadavg().map((load) => +load.toFixed(2)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export const cliStartupRows = (f: CliStartupFigures): string[] => [
  `| leasehold help, median of 5 (node -e 0: ${f.node_floor_ms} ms) | ${f.help_ms} ms (target 250 ms) | |`,
  `| leasehold history <lease>, small ledger, median of 5 | ${f.history_ms} ms (target 500 ms) | |`,
  `| leasehold usage, a year of a log of ${f.usage_events.toLocaleString('en-US')} events, median of 5 (load average ${f.load_average.join(' ')}) | ${f.usage_ms} ms (target 2,000 ms) | |`,
];

if (process.argv[1]?.endsWith('cli-startup.js') === true) {
  runCliStartupBench().then(
    (figures) => {
      console.log(JSON.stringify(figures, null, 2));
      for (const row of cliStartupRows(figures)) console.log(row);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
