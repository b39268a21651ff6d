/**
 * The API's JSON logs (pino) from the built process: one access-log line per request with both
 * request ids and the caller, `time` in ISO-8601 UTC; none with LEASEHOLD_ACCESS_LOG=0. The
 * process is stopped and its output read to the end before anything is asserted.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, eventually, freePort } from '../helpers/system.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Runs the built API, lets `exercise` send it requests, stops it and returns all it wrote. */
const outputOfRun = async (env: Readonly<Record<string, string>>, exercise: (url: string) => Promise<void>): Promise<string> => {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-access-log-'));
  const child = spawn(process.execPath, [join(ROOT, 'dist/apps/api/src/main.js')], {
    env: { ...process.env, LEASEHOLD_PORT: String(port), LEASEHOLD_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const closed = new Promise((resolve) => child.once('close', resolve));
  const url = `http://127.0.0.1:${port}`;
  try {
    await eventually(
      async () =>
        child.exitCode === null
          ? fetch(url).then(
              (r) => (r.status === 300 ? true : undefined),
              () => undefined,
            )
          : true,
      30_000,
      'the API',
    );
    expect(child.exitCode, output).toBeNull();
    await exercise(url);
  } finally {
    child.kill('SIGTERM');
    await closed;
    rmSync(dataDir, { recursive: true, force: true });
  }
  return output;
};

const jsonLines = (output: string): Record<string, unknown>[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the access log', () => {
  it('is one JSON line per request: method, path, status, ms, both request ids and the caller, at an ISO-8601 UTC time', async () => {
    const globalId = `req-${randomUUID()}`;
    let requestId: string | null = null;
    const output = await outputOfRun({}, async (url) => {
      const response = await fetch(`${url}/v1/leases`, { headers: { 'X-OpenStack-Request-Id': globalId } });
      expect(response.status).toBe(200);
      requestId = response.headers.get('x-openstack-request-id');
    });
    expect(requestId).toMatch(/^req-/);
    const lines = jsonLines(output).filter((line) => line.request_id === requestId);
    expect(lines).toEqual([
      {
        level: 30,
        time: expect.stringMatching(ISO_UTC),
        app: 'api',
        method: 'GET',
        path: '/v1/leases',
        status: 200,
        ms: expect.any(Number),
        request_id: requestId,
        global_request_id: globalId,
        user_id: expect.any(String),
        project_id: expect.any(String),
      },
    ]);
  });

  it('is off with LEASEHOLD_ACCESS_LOG=0, while the other lines are still written', async () => {
    let requestId: string | null = null;
    const output = await outputOfRun({ LEASEHOLD_ACCESS_LOG: '0' }, async (url) => {
      const response = await fetch(`${url}/v1/leases`);
      expect(response.status).toBe(200);
      requestId = response.headers.get('x-openstack-request-id');
    });
    expect(requestId).toMatch(/^req-/);
    expect(jsonLines(output)).toContainEqual(
      expect.objectContaining({ app: 'api', listening: expect.any(String), time: expect.stringMatching(ISO_UTC) }),
    );
    expect(output).not.toContain(requestId);
    expect(jsonLines(output).filter((line) => 'request_id' in line)).toEqual([]);
  });
});
