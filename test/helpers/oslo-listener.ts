import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './system.js';

/** The RabbitMQ .ci/run starts (scripts/services/rabbitmq-up.sh); unset: the suites needing it skip. */
export const TEST_AMQP_URL = process.env.LEASEHOLD_TEST_AMQP_URL ?? '';

/** One notification as oslo.messaging handed it to the listener's `info` endpoint. */
export interface HeardNotification {
  readonly priority: string;
  readonly ctxt: Readonly<Record<string, unknown>>;
  readonly publisher_id: string;
  readonly event_type: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly metadata: { readonly message_id: string; readonly timestamp: string };
}

export interface OsloListener {
  readonly heard: HeardNotification[];
  /** Resolves once `check(heard)` holds, polling; fails after `timeoutMs` with what was heard. */
  until(check: (heard: readonly HeardNotification[]) => boolean, timeoutMs: number, what: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Debian's python3-oslo.messaging as a consumer (test/helpers/oslo-notification-listener.py): a
 * notification listener on `exchange`/`topic` at `url`, resolved once it consumes. /usr/bin/python3
 * explicitly: the python3 on PATH may be another one, without oslo.
 */
export const startOsloListener = async (url: string, exchange: string, topic: string): Promise<OsloListener> => {
  const child: ChildProcess = spawn(
    '/usr/bin/python3',
    [join(ROOT, 'test/helpers/oslo-notification-listener.py'), url.replace(/^amqp:/, 'rabbit:'), exchange, topic],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const heard: HeardNotification[] = [];
  let ready = false;
  let pending = '';
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines.filter((l) => l.trim() !== '')) {
      const parsed = JSON.parse(line) as HeardNotification | { ready: true };
      if ('ready' in parsed) ready = true;
      else heard.push(parsed);
    }
  });
  const poll = async (check: () => boolean, timeoutMs: number, what: string): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (child.exitCode !== null) throw new Error(`the oslo listener exited (${child.exitCode}) before ${what}:\n${errors}`);
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; heard ${JSON.stringify(heard.map((h) => h.event_type))}\n${errors}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await poll(() => ready, 30_000, 'the oslo listener to consume');
  return {
    heard,
    until: (check, timeoutMs, what) => poll(() => check(heard), timeoutMs, what),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.stdin?.end();
      }),
  };
};
