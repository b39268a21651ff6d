import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventLog, jsonLogger, queuedOutput } from './logger.js';

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

describe('queuedOutput', () => {
  it('writes every line once, in order, by the time drain() resolves, lines logged during a write in flight included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leasehold-log-'));
    try {
      const file = join(dir, 'out.log');
      const output = queuedOutput(file);
      const log = jsonLogger({ app: 'api' }, output.stream);
      for (let n = 0; n < 20_000; n++) {
        log.info({ n });
        // a turn of the event loop now and then, so later lines queue behind writes in flight
        if (n % 1_000 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      await output.drain();
      const numbers = readFileSync(file, 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { n: number }).n);
      expect(numbers).toEqual(Array.from({ length: 20_000 }, (_, n) => n));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
