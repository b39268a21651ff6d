import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { conflict } from '#domain/index.js';
import { CheckpointEntity, openReadModel } from '#read-model/index.js';
import { isStorageUnavailable } from './storage-unavailable.js';

/** The error `run` throws (each case below provokes a real one from SQLite). */
const thrown = async (run: () => unknown): Promise<unknown> => {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
};

describe('isStorageUnavailable', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-storage-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const table = (name: string): Database.Database => {
    const db = new Database(join(dir, name), { timeout: 0 });
    db.exec('create table t (id integer primary key, v text unique)');
    return db;
  };

  it('is true for a full disk (SQLITE_FULL)', async () => {
    const db = table('full.sqlite');
    db.pragma('max_page_count = 2');
    const error = await thrown(() => db.prepare('insert into t (v) values (?)').run('x'.repeat(20_000)));
    db.close();
    expect(error).toMatchObject({ code: 'SQLITE_FULL' });
    expect(isStorageUnavailable(error)).toBe(true);
  });

  it('is true for a write lock another connection holds past the busy timeout (SQLITE_BUSY)', async () => {
    const holder = table('busy.sqlite');
    holder.exec('begin immediate');
    const writer = new Database(join(dir, 'busy.sqlite'), { timeout: 0 });
    const error = await thrown(() => writer.prepare('insert into t (v) values (?)').run('y'));
    holder.exec('rollback');
    writer.close();
    holder.close();
    expect(error).toMatchObject({ code: 'SQLITE_BUSY' });
    expect(isStorageUnavailable(error)).toBe(true);
  });

  it('is true for a read-only database (SQLITE_READONLY) and a file that cannot be opened (SQLITE_CANTOPEN)', async () => {
    table('ro.sqlite').close();
    const readonly = new Database(join(dir, 'ro.sqlite'), { readonly: true });
    const refused = await thrown(() => readonly.prepare('insert into t (v) values (?)').run('z'));
    readonly.close();
    // a directory where the database file should be
    const missing = await thrown(() => new Database(dir));
    expect(refused).toMatchObject({ code: 'SQLITE_READONLY' });
    expect(missing).toMatchObject({ code: 'SQLITE_CANTOPEN' });
    expect(isStorageUnavailable(refused)).toBe(true);
    expect(isStorageUnavailable(missing)).toBe(true);
  });

  it("is true for the read model's full disk as MikroORM wraps it", async () => {
    const orm = await openReadModel({ kind: 'sqlite', file: join(dir, 'read-model.sqlite') });
    try {
      await orm.em.getConnection().execute('pragma max_page_count = 1');
      const error = await thrown(() =>
        orm.em.fork().insert(CheckpointEntity, {
          name: 'x'.repeat(100_000),
          position: 1,
          failedPosition: null,
          failedEventType: null,
          error: null,
          failedAt: null,
        }),
      );
      expect(error).toMatchObject({ name: 'DriverException', code: 'SQLITE_FULL' });
      expect(isStorageUnavailable(error)).toBe(true);
    } finally {
      await orm.close();
    }
  });

  it('is false for a statement the data refuses, a domain error and anything else', async () => {
    const db = table('unique.sqlite');
    db.prepare('insert into t (v) values (?)').run('same');
    const duplicate = await thrown(() => db.prepare('insert into t (v) values (?)').run('same'));
    db.close();
    expect(duplicate).toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
    expect(isStorageUnavailable(duplicate)).toBe(false);
    expect(isStorageUnavailable(conflict('LEASE_BUSY', 'busy'))).toBe(false);
    expect(isStorageUnavailable(new Error('database or disk is full'))).toBe(false);
    expect(isStorageUnavailable(null)).toBe(false);
  });
});
