import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WriterCheckpoints, WriterMessage, WriterReply } from './batch-writer.protocol.js';
import { startWriterThread } from './batch-writer.thread.js';

const GUARD = 'select position from checkpoints where name = ?';
const INSERT = 'insert into items (id, label) values (?, ?)';
/** Checkpoints of the writer's own at its close only. */
const NEVER_BY_SIZE = { minBytes: Number.MAX_SAFE_INTEGER, factor: 1 } as const;
const ADVANCE = 'insert into checkpoints (name, position) values (?, ?) on conflict (name) do update set position = excluded.position';

/** A batch that adds `items` and moves checkpoint `p` from `from` to `to`. */
const batch = (id: number, from: number, to: number, items: readonly string[]): WriterMessage => ({
  kind: 'batch',
  id,
  guards: [{ sql: GUARD, params: ['p'], expected: from }],
  steps: [
    { sql: INSERT, width: 2, values: items.flatMap((item) => [item, `label of ${item}`]) },
    { sql: ADVANCE, width: 2, values: ['p', to] },
  ],
});

describe('the projector writer thread', () => {
  let dir: string;
  let file: string;
  let worker: Worker;
  let replies: WriterReply[];

  const reply = async (count: number): Promise<WriterReply[]> => {
    while (replies.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
    return replies.slice(0, count);
  };
  const read = <T>(sql: string): T[] => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare(sql).raw(true).all() as T[];
    } finally {
      db.close();
    }
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-writer-thread-'));
    file = join(dir, 'rm.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = wal');
    db.exec('create table checkpoints (name text primary key, position integer not null); create table items (id text primary key, label text not null)');
    db.close();
    start(NEVER_BY_SIZE);
  });

  const start = (checkpoint: WriterCheckpoints | null): void => {
    worker = startWriterThread({ file, pragmas: ['busy_timeout = 1000', 'synchronous = normal'], checkpoint });
    replies = [];
    worker.on('message', (message: WriterReply) => replies.push(message));
  };
  const sizeOf = (path: string): number => (existsSync(path) ? statSync(path).size : 0);
  const until = async (done: () => boolean): Promise<void> => {
    for (const started = Date.now(); !done(); await new Promise((resolve) => setTimeout(resolve, 10))) {
      if (Date.now() - started > 10_000) throw new Error('timed out');
    }
  };
  /** About 6 MB of rows: far more than the 1,000 pages at which SQLite checkpoints by itself. */
  const bulky = (id: number): WriterMessage => batch(id, 0, 10, Array.from({ length: 3_000 }, (_, i) => `${'x'.repeat(2_000)}${i}`));

  afterEach(async () => {
    await worker.terminate();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes each batch with its checkpoint in one transaction, in the order given', async () => {
    worker.postMessage(batch(1, 0, 10, ['a', 'b']));
    worker.postMessage(batch(2, 10, 20, ['c']));
    expect(await reply(2)).toEqual([{ kind: 'written', id: 1 }, { kind: 'written', id: 2 }]);
    expect(read('select id, label from items order by id')).toEqual([['a', 'label of a'], ['b', 'label of b'], ['c', 'label of c']]);
    expect(read('select name, position from checkpoints')).toEqual([['p', 20]]);
  });

  it('writes nothing of a batch folded from a checkpoint that has moved, nor of any after it until reset', async () => {
    worker.postMessage(batch(1, 0, 10, ['a']));
    worker.postMessage(batch(2, 5, 20, ['b']));
    worker.postMessage(batch(3, 20, 30, ['c']));
    const [, moved, refused] = await reply(3);
    expect(moved).toEqual({ kind: 'failed', id: 2, moved: true, error: 'checkpoint p is at 10, the batch was folded from 5' });
    expect(refused).toMatchObject({ kind: 'failed', id: 3, moved: false, error: expect.stringContaining('an earlier batch failed') });
    worker.postMessage({ kind: 'reset' } satisfies WriterMessage);
    worker.postMessage(batch(4, 10, 40, ['d']));
    expect((await reply(4))[3]).toEqual({ kind: 'written', id: 4 });
    expect(read('select id from items order by id')).toEqual([['a'], ['d']]);
    expect(read('select position from checkpoints')).toEqual([[40]]);
  });

  it('leaves the write-ahead log to grow up to its bound, then checkpoints it when it closes', async () => {
    worker.postMessage(bulky(1));
    expect(await reply(1)).toEqual([{ kind: 'written', id: 1 }]);
    // SQLite's automatic checkpoint would have copied the rows into the file at the commit
    expect(sizeOf(`${file}-wal`)).toBeGreaterThan(6_000_000);
    expect(sizeOf(file)).toBeLessThan(100_000);
    worker.postMessage({ kind: 'close' } satisfies WriterMessage);
    expect((await reply(2))[1]).toEqual({ kind: 'closed' });
    expect(sizeOf(`${file}-wal`)).toBe(0);
    expect(sizeOf(file)).toBeGreaterThan(6_000_000);
    expect(read('select count(*) from items')).toEqual([[3_000]]);
  });

  it('checkpoints the write-ahead log after a commit that leaves it above its bound', async () => {
    await worker.terminate();
    start({ minBytes: 1_000_000, factor: 2 });
    worker.postMessage(bulky(1));
    expect(await reply(1)).toEqual([{ kind: 'written', id: 1 }]);
    await until(() => sizeOf(`${file}-wal`) === 0);
    expect(sizeOf(file)).toBeGreaterThan(6_000_000);
    worker.postMessage(batch(2, 10, 20, ['small']));
    expect((await reply(2))[1]).toEqual({ kind: 'written', id: 2 });
    // the log holds one small batch now: less than twice the file, not checkpointed
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sizeOf(`${file}-wal`)).toBeGreaterThan(0);
  });

  it("leaves the checkpoints to SQLite's automatic one when told none of its own", async () => {
    await worker.terminate();
    start(null);
    worker.postMessage(bulky(1));
    expect(await reply(1)).toEqual([{ kind: 'written', id: 1 }]);
    expect(sizeOf(file)).toBeGreaterThan(6_000_000);
  });

  it('rolls a batch back whole when a statement fails, and says why', async () => {
    worker.postMessage(batch(1, 0, 10, ['a']));
    // the second item clashes with the first's primary key after the first row of the batch was written
    worker.postMessage(batch(2, 10, 20, ['b', 'a']));
    const [, failed] = await reply(2);
    expect(failed).toMatchObject({ kind: 'failed', id: 2, moved: false, error: expect.stringMatching(/UNIQUE constraint failed: items.id/) });
    expect(read('select id from items order by id')).toEqual([['a']]);
    expect(read('select position from checkpoints')).toEqual([[10]]);
  });
});
