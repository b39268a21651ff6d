import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventData, RecordedEvent } from '#event-store/event-store.port.js';
import { LogBackupError, backupLog, restoreLog } from '#event-store/sqlite/sqlite-backup.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';

const event = (type: string, correlationId: string): EventData => ({
  id: `${correlationId}-${type}`,
  type,
  data: { type },
  metadata: { correlationId, causationId: correlationId, actor: null },
});

describe('backupLog and restoreLog on SQLite files', () => {
  let dir: string;
  let source: string;
  let written: RecordedEvent[];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-log-backup-'));
    source = join(dir, 'events.sqlite');
    let tick = 0;
    const store = SqliteEventStore.open({ file: source, clock: () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++)) });
    await store.appendToStream('lease-a', -1, [event('Lease.Created', 'one')]);
    // one decision, two streams, three positions: 2 to 4
    await store.appendMultiple([
      { streamId: 'lease-b', expectedRevision: -1, events: [event('Lease.Created', 'two'), event('Lease.Started', 'two')] },
      { streamId: 'lease-a', expectedRevision: 0, events: [event('Lease.Updated', 'two')] },
    ]);
    await store.appendToStream('lease-a', 1, [event('Lease.Ended', 'three')]);
    written = await store.readAll({ from: 0 });
    await store.close();
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const backedUp = async (): Promise<string> => {
    const file = join(dir, 'ledger.backup');
    expect(await backupLog(source, file)).toEqual({ position: 5, events: 5 });
    return file;
  };

  it('restores every event with its position, id, stream, revision and time; the next append follows', async () => {
    const target = join(dir, 'restored', 'events.sqlite');
    expect(restoreLog(await backedUp(), target, null)).toEqual({ position: 5, events: 5 });
    const store = SqliteEventStore.open({ file: target });
    try {
      expect(await store.readAll({ from: 0 })).toEqual(written);
      expect((await store.appendToStream('lease-a', 2, [event('Lease.Deleted', 'four')])).position).toBe(6);
    } finally {
      await store.close();
    }
  });

  it('--to-position keeps the events up to it; the streams are at their revisions then, and the next position is the one after', async () => {
    const target = join(dir, 'earlier', 'events.sqlite');
    expect(restoreLog(await backedUp(), target, 4)).toEqual({ position: 4, events: 4 });
    const store = SqliteEventStore.open({ file: target });
    try {
      expect(await store.readAll({ from: 0 })).toEqual(written.slice(0, 4));
      expect(await store.streamRevision('lease-a')).toBe(1);
      expect(await store.streamRevision('lease-b')).toBe(1);
      expect((await store.appendToStream('lease-a', 1, [event('Lease.Deleted', 'four')])).position).toBe(5);
    } finally {
      await store.close();
    }
  });

  it.each([2, 3])('refuses to cut inside one append (position %i of 2 to 4), and writes nothing', async (toPosition) => {
    const target = join(dir, 'cut', 'events.sqlite');
    expect(() => restoreLog(join(dir, 'events.sqlite'), target, toPosition)).toThrow(
      new LogBackupError(`position ${toPosition} falls inside one append (positions 2 to 4 were written together): restore to 4, or to 1`),
    );
    expect(existsSync(join(dir, 'cut'))).toBe(false);
  });

  it('refuses a position past the end of the backup, and a target that exists', async () => {
    const file = await backedUp();
    expect(() => restoreLog(file, join(dir, 'far', 'events.sqlite'), 6)).toThrow(
      new LogBackupError(`--to-position 6 is past the end of ${file} (its last position: 5)`),
    );
    expect(() => restoreLog(file, source, null)).toThrow(new LogBackupError(`${source} exists already`));
  });

  it('replaces the partial copy a killed backup left', async () => {
    const file = join(dir, 'ledger.backup');
    await backupLog(source, `${file}.partial`);
    expect(await backupLog(source, file)).toEqual({ position: 5, events: 5 });
    expect(existsSync(`${file}.partial`)).toBe(false);
  });
});
