import type { CliIo } from './cli-context.js';

export interface Progress {
  update(done: number, total: number): void;
  /** Clears the bar, so what follows starts on a clean line. */
  finish(): void;
}

const NO_PROGRESS: Progress = { update: () => undefined, finish: () => undefined };
const WIDTH = 30;
const REDRAW_MS = 100;

const count = (n: number): string => Math.round(n).toLocaleString('en-US');

const line = (label: string, done: number, total: number, seconds: number): string => {
  const share = total > 0 ? Math.min(done / total, 1) : 1;
  const filled = Math.round(share * WIDTH);
  const rate = seconds > 0 ? done / seconds : 0;
  return `${label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${(share * 100).toFixed(0).padStart(3)}% ${count(done)}/${count(total)} events, ${count(rate)} events/s`;
};

/** A progress bar on stderr when it is a terminal; nothing at all in a pipe, a file or a test. */
export const progressBar = (io: CliIo, label: string, now: () => number = () => performance.now()): Progress => {
  if (io.stderr.isTTY !== true) return NO_PROGRESS;
  const started = now();
  let drawn = -Infinity;
  return {
    update: (done, total) => {
      const at = now();
      if (at - drawn < REDRAW_MS && done < total) return;
      drawn = at;
      io.stderr.write(`\r\x1b[K${line(label, done, total, (at - started) / 1000)}`);
    },
    finish: () => {
      if (drawn !== -Infinity) io.stderr.write('\r\x1b[K');
      drawn = -Infinity;
    },
  };
};
