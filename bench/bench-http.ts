import { spawn } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
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

/**
 * A client that costs little itself: node:http on keep-alive connections (at most `sockets` at once). undici's fetch,
 * which the bench used before, spent about 1.9 ms of the machine's CPU on each create of the one-client run, on a
 * machine of 2 cores that the API shares with it.
 */
export const caller = (base: string, sockets = 64): Call => {
  const { hostname, port } = new URL(base);
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  return (method, path, body) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const started = performance.now();
      const headers = payload === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': payload.length };
      const request = httpRequest({ host: hostname, port, method, path, agent, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          // timed to the last byte received: decoding and parsing the answer is the client's work, not the service's
          const ms = performance.now() - started;
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : null, ms });
        });
      });
      request.on('error', reject);
      request.end(payload);
    });
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
