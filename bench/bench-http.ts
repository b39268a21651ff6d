import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What both bench workloads share: a launched system, timed JSON calls, percentiles, Blazar dates. */

const dist = join(dirname(fileURLToPath(import.meta.url)), '..');

export const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

export const blazarDate = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

export interface Timed {
  readonly status: number;
  readonly body: any;
  readonly ms: number;
}

export type Call = (method: string, path: string, body?: unknown) => Promise<Timed>;

export const caller =
  (base: string): Call =>
  async (method, path, body) => {
    const started = performance.now();
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const bytes = await response.arrayBuffer();
    // Timed to the last byte received: decoding and parsing the answer is the client's work, not the service's.
    const ms = performance.now() - started;
    const text = new TextDecoder().decode(bytes);
    return { status: response.status, body: text ? JSON.parse(text) : null, ms };
  };

const waitUp = async (base: string): Promise<void> => {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${base}/`)).status === 300) return;
    } catch {
      // starting
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('system did not start');
};

export interface LaunchedSystem {
  readonly call: Call;
  stop(): Promise<void>;
}

/** The built launcher (api, projector, reactor), or another entry such as the api alone, on `port` with its own data folder. */
export const launch = async (
  port: number,
  dataDir: string,
  env: Readonly<Record<string, string>> = {},
  entry = 'apps/launcher/main.js',
): Promise<LaunchedSystem> => {
  const base = `http://127.0.0.1:${port}`;
  const system = spawn(process.execPath, [join(dist, entry)], {
    env: { ...process.env, LEASEHOLD_PORT: String(port), LEASEHOLD_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = async (): Promise<void> => {
    if (system.exitCode !== null) return;
    const exited = new Promise((resolve) => system.once('exit', resolve));
    system.kill('SIGTERM');
    await exited;
  };
  try {
    await waitUp(base);
  } catch (error) {
    await stop();
    throw error;
  }
  return { call: caller(base), stop };
};
