import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressBar } from './progress-bar.js';

const stderr = (isTTY: boolean) => {
  const stream = Object.assign(new PassThrough(), { isTTY });
  let written = '';
  stream.on('data', (chunk: Buffer) => (written += chunk.toString()));
  return { stream, written: () => written };
};

describe('progressBar', () => {
  it('draws position/total and events/s on a terminal, at most every 100 ms, and clears its line at the end', () => {
    const terminal = stderr(true);
    let clock = 0;
    const bar = progressBar({ env: {}, stdout: new PassThrough(), stderr: terminal.stream }, 'replay', () => clock);
    clock = 1_000;
    bar.update(50_000, 200_000);
    clock = 1_050;
    bar.update(60_000, 200_000);
    clock = 2_000;
    bar.update(200_000, 200_000);
    bar.finish();
    bar.finish();
    const frames = terminal
      .written()
      .split('\r\x1b[K')
      .filter((frame) => frame.length > 0);
    expect(frames).toEqual([
      `replay [${'#'.repeat(8)}${'-'.repeat(22)}]  25% 50,000/200,000 events, 50,000 events/s`,
      `replay [${'#'.repeat(30)}] 100% 200,000/200,000 events, 100,000 events/s`,
    ]);
    expect(terminal.written().endsWith(`events/s\r\x1b[K`)).toBe(true);
  });

  it('writes nothing when stderr is a pipe or a file', () => {
    const pipe = stderr(false);
    const bar = progressBar({ env: {}, stdout: new PassThrough(), stderr: pipe.stream }, 'export');
    bar.update(1, 2);
    bar.update(2, 2);
    bar.finish();
    expect(pipe.written()).toBe('');
  });
});
