/**
 * docs/upgrades.md, read models: at the projector's start (upgradeReadModel, before its runner starts)
 * a read model is recorded at this release's schema version; one an earlier release projected at an
 * older version is rebuilt from the log (its rows replaced by what this release projects); one a later
 * release projected is refused, untouched.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventData } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { ProjectionRunner } from '#projector/projection-runner.js';
import { ReadModelTooNewError, storedSchemaVersion, upgradeReadModel } from '#projector/read-model-schema.js';
import { READ_MODEL_SCHEMA_VERSION, SCHEMA_VERSION_CHECKPOINT, openReadModel } from '#read-model/index.js';

const fixture = (file: string): EventData => {
  const { type, data } = JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/events', file), 'utf8')) as EventData;
  return { id: file, type, data, metadata: { correlationId: 'c', causationId: 'c', actor: null } };
};

describe("a read model of another release's schema version, at the projector's start", () => {
  let dir: string;
  let store: SqliteEventStore;
  let orm: MikroORM;
  const readModelFile = (): string => join(dir, 'read-model.sqlite');

  const sql = <T>(query: string, ...params: unknown[]): T[] => {
    const db = new Database(readModelFile());
    try {
      return query.trimStart().startsWith('select') ? (db.prepare(query).all(...params) as T[]) : (db.prepare(query).run(...params), []);
    } finally {
      db.close();
    }
  };
  const leaseNames = (): string[] => sql<{ name: string }>('select name from lh_leases').map((row) => row.name);
  const versionRow = (): number | undefined =>
    sql<{ position: number }>('select position from lh_checkpoints where name = ?', SCHEMA_VERSION_CHECKPOINT)[0]?.position;

  /** The projector's start: the read model brought to its version, then its runner to the head. */
  const startProjector = async (current = READ_MODEL_SCHEMA_VERSION): Promise<boolean> => {
    const rebuilt = await upgradeReadModel({ store, orm, current, writerThread: false });
    const runner = new ProjectionRunner({ store, orm, writerThread: false, retryDelayMs: null });
    await runner.start();
    await runner.caughtUp;
    await runner.stop();
    return rebuilt;
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-read-model-upgrade-'));
    store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
    await store.appendToStream('lease-lease-1', 'no_stream', [fixture('Lease.Created.v1.json'), fixture('Lease.Renamed.v1.json')]);
    orm = await openReadModel({ kind: 'sqlite', file: readModelFile() });
  });

  afterEach(async () => {
    await orm?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("records this release's version on a new read model, and a read model from before versions as version 1", async () => {
    expect(await startProjector()).toBe(false);
    expect(versionRow()).toBe(READ_MODEL_SCHEMA_VERSION);
    expect(leaseNames()).toEqual(['renamed']);
    sql('delete from lh_checkpoints where name = ?', SCHEMA_VERSION_CHECKPOINT);
    expect(await storedSchemaVersion(orm, READ_MODEL_SCHEMA_VERSION + 1)).toBe(1);
  });

  it('rebuilds a read model of an older version from the log, and records the new version', async () => {
    await startProjector();
    sql("update lh_leases set name = 'as an older release projected it'");
    const next = READ_MODEL_SCHEMA_VERSION + 1;
    expect(await startProjector(next)).toBe(true);
    expect(leaseNames()).toEqual(['renamed']);
    expect(versionRow()).toBe(next);
    expect(await startProjector(next)).toBe(false);
  });

  it('refuses a read model a later release projected, and leaves it as it is', async () => {
    await startProjector();
    sql('update lh_checkpoints set position = ? where name = ?', READ_MODEL_SCHEMA_VERSION + 1, SCHEMA_VERSION_CHECKPOINT);
    sql("update lh_leases set name = 'as a later release projected it'");
    const start = upgradeReadModel({ store, orm, writerThread: false });
    await expect(start).rejects.toBeInstanceOf(ReadModelTooNewError);
    await expect(start).rejects.toThrow(/schema version 2, newer than this release's 1: upgrade the projector, or rebuild/);
    expect(leaseNames()).toEqual(['as a later release projected it']);
    expect(versionRow()).toBe(READ_MODEL_SCHEMA_VERSION + 1);
  });
});
