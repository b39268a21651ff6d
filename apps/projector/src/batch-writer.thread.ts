import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { WriterSetup } from './batch-writer.protocol.js';

/**
 * The projector's SQLite writer thread (see sqlite-pipeline.ts): writes the batches the main thread
 * has folded, each in one transaction on a connection of its own, while the main thread reads and
 * folds the next one. A batch first checks that every projection's checkpoint is where the main
 * thread folded from (another projector, or a rebuild's swap, may have moved it): if not, nothing of
 * it is written. After a failed batch every later one is refused until the main thread says `reset`:
 * they were folded on top of rows that were never written.
 *
 * Plain JavaScript run with `eval`: the same source runs from the compiled build and from the
 * TypeScript sources under the test runner, which a worker's file could not (a worker cannot load
 * TypeScript); it needs nothing but better-sqlite3, whose path it is given.
 */
const WRITER_THREAD = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
for (const pragma of workerData.pragmas) db.pragma(pragma);
const statements = new Map();
const prepared = (sql) => {
  let statement = statements.get(sql);
  if (statement === undefined) statements.set(sql, (statement = db.prepare(sql)));
  return statement;
};
let refusing = null;
const write = (message) => {
  let moved = null;
  db.transaction(() => {
    for (const guard of message.guards) {
      const found = prepared(guard.sql).pluck().get(...guard.params);
      const position = found === undefined ? 0 : Number(found);
      if (position !== guard.expected) {
        moved = 'checkpoint ' + String(guard.params[0]) + ' is at ' + position + ', the batch was folded from ' + guard.expected;
        return;
      }
    }
    for (const step of message.steps) {
      const statement = prepared(step.sql);
      for (let i = 0; i < step.values.length; i += step.width) statement.run(step.values.slice(i, i + step.width));
    }
  }).immediate();
  return moved;
};
parentPort.on('message', (message) => {
  if (message.kind === 'reset') {
    refusing = null;
    return;
  }
  if (message.kind === 'close') {
    db.close();
    parentPort.postMessage({ kind: 'closed' });
    return;
  }
  if (refusing !== null) {
    parentPort.postMessage({ kind: 'failed', id: message.id, error: 'not written: an earlier batch failed (' + refusing + ')', moved: false });
    return;
  }
  try {
    const moved = write(message);
    if (moved === null) {
      parentPort.postMessage({ kind: 'written', id: message.id });
      return;
    }
    refusing = moved;
    parentPort.postMessage({ kind: 'failed', id: message.id, error: moved, moved: true });
  } catch (error) {
    refusing = error instanceof Error ? error.message : String(error);
    parentPort.postMessage({ kind: 'failed', id: message.id, error: refusing, moved: false });
  }
});
`;

/** Starts a writer thread on the read model's file. */
export const startWriterThread = (setup: WriterSetup): Worker =>
  new Worker(WRITER_THREAD, { eval: true, workerData: { ...setup, driver: createRequire(import.meta.url).resolve('better-sqlite3') } });
