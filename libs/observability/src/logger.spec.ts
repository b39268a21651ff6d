import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchedJsonLogger, eventLog, jsonLogger } from './logger.js';

const capture = () => {
  const lines: string[] = [];
  return {
    lines,
    destination: { write: (line: string) => void lines.push(line) },
    parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
};

describe('jsonLogger', () => {
  it('writes one JSON line per entry: ISO-8601 UTC time, the given fields, then the entry', () => {
    const { lines, destination, parsed } = capture();
    jsonLogger({ app: 'api' }, destination).info({ method: 'GET', status: 200 });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.endsWith('\n')).toBe(true);
    const [line] = parsed();
    expect(line).toMatchObject({ app: 'api', method: 'GET', status: 200, level: 30 });
    expect(line?.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Object.keys(line ?? {})).not.toContain('pid');
  });
});

describe('eventLog', () => {
  it('keeps service and event; an error event is logged at error, others at info', () => {
    const { destination, parsed } = capture();
    const log = eventLog('reactor', destination);
    log({ event: 'start', leaseId: 'l-1' });
    log({ event: 'error', phase: 'open', error: 'disk full' });
    expect(parsed()).toEqual([
      expect.objectContaining({ service: 'reactor', event: 'start', leaseId: 'l-1', level: 30 }),
      expect.objectContaining({ service: 'reactor', event: 'error', phase: 'open', error: 'disk full', level: 50 }),
    ]);
  });

  it("an entry's own level is pino's level, written once", () => {
    const { lines, destination, parsed } = capture();
    eventLog('reactor', destination)({ event: 'notification', level: 'debug', handledAs: 'unmanaged' });
    expect(parsed()).toEqual([expect.objectContaining({ event: 'notification', level: 20, handledAs: 'unmanaged' })]);
    expect(lines[0]?.match(/"level"/g)).toHaveLength(1);
  });
});

describe('batchedJsonLogger', () => {
  /** A log file, open for appending as stdout is: its descriptor, and then its lines. */
  const inFile = async (use: (fd: number, lines: () => string[]) => Promise<void>): Promise<void> => {
    const folder = mkdtempSync(join(tmpdir(), 'leasehold-batched-log-'));
    const file = join(folder, 'log');
    const fd = openSync(file, 'a');
    try {
      await use(fd, () =>
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => line !== ''),
      );
    } finally {
      closeSync(fd);
      rmSync(folder, { recursive: true, force: true });
    }
  };

  it("writes jsonLogger's lines, every one of them once flushed", async () => {
    await inFile(async (fd, written) => {
      const log = batchedJsonLogger({ app: 'api' }, () => undefined, { batchBytes: 4000, waitMs: 60_000, maxWaitingBytes: 1_000_000 }, fd);
      for (let i = 0; i < 100; i++) log.logger.info({ method: 'GET', i });
      log.flush();
      const lines = written();
      expect(lines.map((line) => (JSON.parse(line) as { i: number }).i)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ level: 30, app: 'api', method: 'GET', i: 0 });
    });
  });

  it('drops the lines beyond the bytes that may wait, and says how many once a write goes through', async () => {
    await inFile(async (fd, written) => {
      let reported = (_lines: number): void => undefined;
      const dropped = new Promise<number>((resolve) => (reported = resolve));
      const log = batchedJsonLogger(
        { app: 'api' },
        (lines) => reported(lines),
        { batchBytes: 100, waitMs: 60_000, maxWaitingBytes: 1_000 },
        fd,
      );
      // the first line starts a write; the next wait for it, in the event loop, and those past 1,000 bytes are dropped
      for (let i = 0; i < 50; i++) log.logger.info({ method: 'GET', i });
      const count = await dropped;
      log.flush();
      expect(count).toBeGreaterThan(0);
      expect(written().length + count).toBe(50);
    });
  });
});
