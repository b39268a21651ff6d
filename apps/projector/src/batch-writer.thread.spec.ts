import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WriterMessage, WriterReply } from './batch-writer.protocol.js';
import { startWriterThread } from './batch-writer.thread.js';

const GUARD = 'select position from checkpoints where name = ?';
const INSERT = 'insert into items (id, label) values (?, ?)';
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
    db.exec(
      'create table checkpoints (name text primary key, position integer not null); create table items (id text primary key, label text not null)',
    );
    db.close();
    worker = startWriterThread({ file, pragmas: ['busy_timeout = 1000', 'synchronous = normal'] });
    replies = [];
    worker.on('message', (message: WriterReply) => replies.push(message));
  });

  afterEach(async () => {
    await worker.terminate();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes each batch with its checkpoint in one transaction, in the order given', async () => {
    worker.postMessage(batch(1, 0, 10, ['a', 'b']));
    worker.postMessage(batch(2, 10, 20, ['c']));
    expect(await reply(2)).toEqual([
      { kind: 'written', id: 1 },
      { kind: 'written', id: 2 },
    ]);
    expect(read('select id, label from items order by id')).toEqual([
      ['a', 'label of a'],
      ['b', 'label of b'],
      ['c', 'label of c'],
    ]);
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

  it('rolls a batch back whole when a statement fails, and says why', async () => {
    worker.postMessage(batch(1, 0, 10, ['a']));
    // the second item clashes with the first's primary key after the first row of the batch was written
    worker.postMessage(batch(2, 10, 20, ['b', 'a']));
    const [, failed] = await reply(2);
    expect(failed).toMatchObject({
      kind: 'failed',
      id: 2,
      moved: false,
      error: expect.stringMatching(/UNIQUE constraint failed: items.id/),
    });
    expect(read('select id from items order by id')).toEqual([['a']]);
    expect(read('select position from checkpoints')).toEqual([[10]]);
  });
});
