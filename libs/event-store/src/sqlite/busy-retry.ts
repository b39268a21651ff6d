import { setTimeout as sleep } from 'node:timers/promises';

const BUSY_CODE = /^SQLITE_(BUSY|LOCKED)/;
const DEFAULT_ATTEMPTS = 4;
const BASE_DELAY_MS = 25;

/** True for the SQLite errors that mean "another connection holds the lock, try again later". */
export const isBusyError = (error: unknown): boolean =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' && BUSY_CODE.test(error.code);

const backoffMs = (attempt: number): number => BASE_DELAY_MS * 2 ** (attempt - 1) + Math.random() * BASE_DELAY_MS;

/**
 * Runs a synchronous SQLite operation, retrying with async backoff when SQLITE_BUSY escapes
 * the busy_timeout (possible with several processes writing to one file).
 */
export async function withBusyRetry<T>(operation: () => T, attempts = DEFAULT_ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return operation();
    } catch (error) {
      if (!isBusyError(error) || attempt >= attempts) throw error;
      await sleep(backoffMs(attempt));
    }
  }
}

/** Same as withBusyRetry for code that must stay synchronous (opening the store). */
export function withBusyRetrySync<T>(operation: () => T, attempts = DEFAULT_ATTEMPTS): T {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 1; ; attempt++) {
    try {
      return operation();
    } catch (error) {
      if (!isBusyError(error) || attempt >= attempts) throw error;
      Atomics.wait(pause, 0, 0, backoffMs(attempt));
    }
  }
}
