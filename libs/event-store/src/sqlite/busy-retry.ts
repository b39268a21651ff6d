import { setTimeout as sleep } from 'node:timers/promises';

const BUSY_CODE = /^SQLITE_(BUSY|LOCKED)/;

/** How long an operation waits in all for another connection's lock before it fails with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * How long one attempt may wait inside SQLite (the connection's busy_timeout). SQLite waits
 * synchronously, blocking the whole process: a short wait per attempt with async pauses between
 * attempts keeps the process answering (probes, reads) while another process holds the lock.
 */
export const LOCK_WAIT_MS = 20;

const BASE_DELAY_MS = 10;
const MAX_DELAY_MS = 100;

/** True for the SQLite errors that mean "another connection holds the lock, try again later". */
export const isBusyError = (error: unknown): boolean =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' && BUSY_CODE.test(error.code);

const backoffMs = (attempt: number): number => Math.min(BASE_DELAY_MS * 2 ** (attempt - 1), MAX_DELAY_MS) + Math.random() * BASE_DELAY_MS;

/**
 * Runs a synchronous SQLite operation, retrying with async backoff while SQLITE_BUSY says another
 * connection (or process) holds the lock, for up to `timeoutMs` in all; then the last SQLITE_BUSY
 * is thrown. Elapsed time is measured on the monotonic clock: a wall-clock step changes nothing.
 */
export async function withBusyRetry<T>(operation: () => T, timeoutMs = BUSY_TIMEOUT_MS): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return operation();
    } catch (error) {
      if (!isBusyError(error) || performance.now() >= deadline) throw error;
      await sleep(Math.min(backoffMs(attempt), Math.max(0, deadline - performance.now())));
    }
  }
}

/** Same as withBusyRetry for code that must stay synchronous (opening the store). */
export function withBusyRetrySync<T>(operation: () => T, timeoutMs = BUSY_TIMEOUT_MS): T {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = performance.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return operation();
    } catch (error) {
      if (!isBusyError(error) || performance.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, Math.min(backoffMs(attempt), Math.max(0, deadline - performance.now())));
    }
  }
}
