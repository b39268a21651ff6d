import { execFile, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CommandHandler, type Decision } from '#application/command-handler.js';
import { SqliteEventStore, WrongExpectedRevisionError, type EventData } from '#event-store/index.js';

const COMPILE_TIMEOUT_MS = 120_000;
const BURST = 32;
/** Appends acknowledged before the writer is killed: several bursts, so the kill lands mid-burst. */
const ACKED_BEFORE_KILL = 300;
/** Far more than a loaded machine needs to start the writer and acknowledge ACKED_BEFORE_KILL appends. */
const ACK_WAIT_MS = 30_000;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const anEvent = (): EventData => {
  const id = crypto.randomUUID();
  return { id, type: 'Grouped', data: { id }, metadata: { correlationId: id, causationId: id, actor: null } };
};

/** WAL frames written so far: the file is a 32-byte header then frames of a 24-byte header and one page. */
const walFrames = (file: string): number => {
  const size = statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 32;
  return (size - 32) / (24 + 4096);
};

describe('SqliteEventStore group commit', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  });

  const openOnTempFile = async (): Promise<{ readonly file: string; readonly store: SqliteEventStore }> => {
    const dir = await mkdtemp(join(tmpdir(), 'leasehold-es-group-'));
    const file = join(dir, 'events.sqlite');
    const store = SqliteEventStore.open({ file, pollIntervalMs: 5 });
    cleanups.push(async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    });
    return { file, store };
  };

  it('writes appends made in the same tick in one transaction, and each caller hears only after it committed', async () => {
    const { file, store } = await openOnTempFile();
    await store.appendToStream(`warm-${crypto.randomUUID()}`, 'no_stream', [anEvent()]);
    const framesOfOne = walFrames(file);
    const commitsBefore = store.commits();

    const streams = Array.from({ length: 20 }, () => `grouped-${crypto.randomUUID()}`);
    const results = await Promise.all(streams.map((streamId) => store.appendToStream(streamId, 'no_stream', [anEvent()])));

    expect(store.commits() - commitsBefore).toBe(1);
    // twenty commits would write each touched page twenty times; one writes it about once
    expect(walFrames(file) - framesOfOne).toBeLessThan(3 * framesOfOne);
    expect(results.map((result) => result.streams)).toEqual(streams.map((streamId) => [{ streamId, nextRevision: 0 }]));
    const positions = results.map((result) => result.position);
    expect(positions).toEqual(positions.map((_, n) => (positions[0] ?? 0) + n));
  });

  it('fails one conflicting append of a group alone, with the error it gets today, and commits the others', async () => {
    const { store } = await openOnTempFile();
    const contended = `contended-${crypto.randomUUID()}`;
    const other = `other-${crypto.randomUUID()}`;
    await store.appendToStream(contended, 'no_stream', [anEvent()]);
    const commitsBefore = store.commits();

    const [first, second, third] = await Promise.allSettled([
      store.appendToStream(contended, 0, [anEvent()]),
      store.appendToStream(contended, 0, [anEvent()]),
      store.appendToStream(other, 'no_stream', [anEvent()]),
    ]);

    expect(first).toMatchObject({ status: 'fulfilled', value: { streams: [{ streamId: contended, nextRevision: 1 }] } });
    expect(second).toMatchObject({ status: 'rejected', reason: { name: 'WrongExpectedRevisionError', expected: 0, actual: 1 } });
    expect(second.status === 'rejected' && second.reason instanceof WrongExpectedRevisionError).toBe(true);
    expect(third).toMatchObject({ status: 'fulfilled', value: { streams: [{ streamId: other, nextRevision: 0 }] } });
    expect(store.commits() - commitsBefore).toBe(1);
    expect((await store.readStream(contended)).map((e) => e.revision)).toEqual([0, 1]);
  });

  it('lets the command handler decide again an append that lost in its group, and loses none', async () => {
    const { store } = await openOnTempFile();
    const contended = `counter-${crypto.randomUUID()}`;
    const unrelated = `unrelated-${crypto.randomUUID()}`;
    // three handlers: as three processes would, each decides under its own lock
    const handlers = [new CommandHandler(store), new CommandHandler(store), new CommandHandler(store)];
    const decisions: string[] = [];
    const bump = (streamId: string, name: string) => async (): Promise<Decision<string>> => {
      const revision = await store.streamRevision(streamId);
      decisions.push(`${name}@${revision}`);
      return { appends: [{ streamId, expectedRevision: revision === -1 ? 'no_stream' : revision, events: [anEvent()] }], result: name };
    };
    const commitsBefore = store.commits();

    const handled = await Promise.all([
      handlers[0]!.handle(bump(contended, 'a')),
      handlers[1]!.handle(bump(contended, 'b')),
      handlers[2]!.handle(bump(unrelated, 'c')),
    ]);

    expect(handled.map((h) => h.result)).toEqual(['a', 'b', 'c']);
    // b decided on the revision a also read, lost in the group that committed a and c, and was decided again
    expect(decisions).toEqual(['a@-1', 'b@-1', 'c@-1', 'b@0']);
    expect(store.commits() - commitsBefore).toBe(2);
    expect((await store.readStream(contended)).map((e) => e.revision)).toEqual([0, 1]);
    expect(await store.streamRevision(unrelated)).toBe(0);
  });

  describe('a writer killed mid-burst', () => {
    let buildDir = '';
    let adapter = '';

    beforeAll(async () => {
      buildDir = await mkdtemp(join(tmpdir(), 'leasehold-es-build-'));
      await promisify(execFile)(process.execPath, [
        join(root, 'node_modules/typescript/bin/tsc'),
        '-p',
        join(root, 'libs/event-store/tsconfig.worker.json'),
        '--outDir',
        join(buildDir, 'out'),
      ]);
      await writeFile(join(buildDir, 'package.json'), JSON.stringify({ type: 'module' }));
      await symlink(join(root, 'node_modules'), join(buildDir, 'node_modules'), 'dir');
      adapter = join(buildDir, 'out/sqlite/sqlite-event-store.js');
    }, COMPILE_TIMEOUT_MS);

    afterAll(async () => {
      await rm(buildDir, { recursive: true, force: true });
    });

    it('loses no acknowledged append (SIGKILL)', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'leasehold-es-crash-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const file = join(dir, 'events.sqlite');
      const writer = spawn(process.execPath, [join(root, 'test/contract/fixtures/burst-writer.mjs'), adapter, file, String(BURST)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const acked: string[] = [];
      let stderr = '';
      writer.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<NodeJS.Signals | null>((resolveExit) => writer.once('exit', (_, signal) => resolveExit(signal)));
      let partial = '';
      await new Promise<void>((resolveKill, reject) => {
        writer.once('exit', () => reject(new Error(`writer exited before the kill: ${stderr}`)));
        const slow = setTimeout(() => {
          writer.kill('SIGKILL');
          reject(new Error(`${acked.length} appends acknowledged in ${ACK_WAIT_MS} ms: ${stderr}`));
        }, ACK_WAIT_MS);
        writer.once('exit', () => clearTimeout(slow));
        writer.stdout.on('data', (chunk: Buffer) => {
          const lines = (partial + chunk.toString()).split('\n');
          partial = lines.pop() ?? '';
          for (const line of lines) if (line.startsWith('acked ')) acked.push(line.slice('acked '.length));
          if (acked.length >= ACKED_BEFORE_KILL && writer.signalCode === null) {
            writer.kill('SIGKILL');
            resolveKill();
          }
        });
      });
      expect(await exited).toBe('SIGKILL');
      for (const line of (partial + writer.stdout.read()?.toString()).split('\n'))
        if (line.startsWith('acked ')) acked.push(line.slice('acked '.length));

      const db = new Database(file, { readonly: true });
      try {
        const stored = new Set(db.prepare('SELECT event_id FROM events').pluck().all() as string[]);
        expect(acked.filter((id) => !stored.has(id))).toEqual([]);
        expect(stored.size).toBeGreaterThanOrEqual(acked.length);
      } finally {
        db.close();
      }
    });
  });
});
