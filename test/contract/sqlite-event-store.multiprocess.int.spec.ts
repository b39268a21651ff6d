import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventStore, type RecordedEvent } from '#event-store/index.js';
import { waitFor } from '#event-store/testing/event-store.contract.js';

const WORKERS = 4;
const APPENDS_PER_WORKER = 200;
const STREAM_COUNT = 5;
const COMPILE_TIMEOUT_MS = 120_000;
const RUN_TIMEOUT_MS = 60_000;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const workerScript = join(root, 'test/contract/fixtures/append-worker.mjs');

/**
 * Compiles the event-store library to plain ESM in a temp dir, so child processes exercise
 * the real adapter. node_modules is linked in so the compiled code resolves better-sqlite3.
 */
async function compileAdapter(buildDir: string): Promise<{ readonly adapter: string; readonly port: string }> {
  const outDir = join(buildDir, 'out');
  await promisify(execFile)(process.execPath, [
    join(root, 'node_modules/typescript/bin/tsc'),
    '-p',
    join(root, 'libs/event-store/tsconfig.worker.json'),
    '--outDir',
    outDir,
  ]);
  await writeFile(join(buildDir, 'package.json'), JSON.stringify({ type: 'module' }));
  await symlink(join(root, 'node_modules'), join(buildDir, 'node_modules'), 'dir');
  return { adapter: join(outDir, 'sqlite/sqlite-event-store.js'), port: join(outDir, 'event-store.port.js') };
}

interface Worker {
  /** Resolves once the worker has opened the store and waits for the start signal. */
  readonly ready: Promise<void>;
  /** Resolves with the worker's summary line once it exits successfully. */
  readonly finished: Promise<string>;
  start(): void;
}

function spawnWorker(args: readonly string[]): Worker {
  const child = spawn(process.execPath, [workerScript, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolvePromise) => {
    markReady = resolvePromise;
  });
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.startsWith('ready\n')) markReady();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const finished = new Promise<string>((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      markReady();
      if (code === 0) resolvePromise(stdout.replace('ready\n', '').trim());
      else reject(new Error(`worker exited with ${String(code)}: ${stderr}`));
    });
  });
  return { ready, finished, start: () => child.stdin.end('go\n') };
}

describe('SqliteEventStore shared by several processes', () => {
  let buildDir = '';
  let dataDir = '';
  let compiled: { readonly adapter: string; readonly port: string } | undefined;

  beforeAll(async () => {
    buildDir = await mkdtemp(join(tmpdir(), 'leasehold-es-build-'));
    dataDir = await mkdtemp(join(tmpdir(), 'leasehold-es-mp-'));
    compiled = await compileAdapter(buildDir);
  }, COMPILE_TIMEOUT_MS);

  afterAll(async () => {
    await rm(buildDir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  it(
    'keeps revisions contiguous and positions gap-free under concurrent appends from 4 processes',
    async () => {
      if (!compiled) throw new Error('adapter not compiled');
      const file = join(dataDir, 'events.db');
      const streams = Array.from({ length: STREAM_COUNT }, (_, n) => `mp-${n}-${crypto.randomUUID()}`);
      const store = SqliteEventStore.open({ file, pollIntervalMs: 5 });
      const live: RecordedEvent[] = [];
      const subscription = store.subscribeToAll({ from: 0, onEvents: async (events) => void live.push(...events) });
      await subscription.caughtUp;
      const { adapter, port } = compiled;

      const workers = Array.from({ length: WORKERS }, (_, workerId) =>
        spawnWorker([adapter, port, file, String(workerId), String(APPENDS_PER_WORKER), streams.join(',')]),
      );
      await Promise.all(workers.map((worker) => worker.ready));
      workers.forEach((worker) => worker.start());
      const outputs = await Promise.all(workers.map((worker) => worker.finished));

      const total = WORKERS * APPENDS_PER_WORKER;
      expect(outputs.map((output) => (JSON.parse(output) as { workerId: number }).workerId).sort()).toEqual([0, 1, 2, 3]);
      const all = await store.readAll({ from: 0 });
      expect(all).toHaveLength(total);
      const positions = all.map((e) => e.position);
      positions.slice(1).forEach((position, index) => expect(position).toBe((positions[index] ?? 0) + 1));
      expect((positions.at(-1) ?? 0) - (positions[0] ?? 0) + 1).toBe(total);
      expect(new Set(all.map((e) => e.id)).size).toBe(total);

      const perStream = await Promise.all(streams.map((streamId) => store.readStream(streamId)));
      perStream.forEach((events) => expect(events.map((e) => e.revision)).toEqual(events.map((_, n) => n)));
      expect(perStream.reduce((sum, events) => sum + events.length, 0)).toBe(total);
      await Promise.all(
        streams.map(async (streamId, n) => expect(await store.streamRevision(streamId)).toBe((perStream[n]?.length ?? 0) - 1)),
      );

      await waitFor(() => live.length >= total);
      expect(live.map((e) => e.id)).toEqual(all.map((e) => e.id));
      await store.close();
    },
    RUN_TIMEOUT_MS,
  );
});
