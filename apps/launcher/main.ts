import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm start`: runs the projector, the reactor and the API as three processes on the embedded store,
 * and the publisher as a fourth when an outbound channel is configured (LEASEHOLD_KAFKA_BROKERS,
 * docs/kafka.md; LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL, docs/notifications.md; LEASEHOLD_WEBHOOKS=on, docs/webhooks.md),
 * prefixes their output, and stops all of them if one dies or on SIGINT/SIGTERM.
 */
/**
 * The publisher has work when Kafka, the oslo notifications or webhooks are on (it checks the values itself and exits 1 naming a bad one).
 */
function publisherWanted(): boolean {
  const webhooks = (process.env.LEASEHOLD_WEBHOOKS ?? '').trim().toLowerCase();
  const switchedOn = ['LEASEHOLD_KAFKA_BROKERS', 'LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL'].some(
    (name) => (process.env[name] ?? '').trim() !== '',
  );
  return switchedOn || !['', 'off', 'false', '0', 'no'].includes(webhooks);
}

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const APPS = [
  { name: 'projector', entry: join(dist, 'apps/projector/src/main.js') },
  { name: 'reactor', entry: join(dist, 'apps/reactor/src/main.js') },
  { name: 'api', entry: join(dist, 'apps/api/src/main.js') },
  ...(publisherWanted() ? [{ name: 'publisher', entry: join(dist, 'apps/publisher/src/main.js') }] : []),
];

const children = new Map<string, ChildProcess>();
let stopping = false;

const prefix = (name: string, chunk: Buffer, out: NodeJS.WriteStream): void => {
  for (const line of chunk.toString().split('\n')) if (line.length > 0) out.write(`[${name}] ${line}\n`);
};

/** As the systemd units' TimeoutStopSec: the batch or actions in flight record their outcome first. */
const STOP_GRACE_MS = 30_000;

const isRunning = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;

/**
 * SIGTERM to each process, SIGKILL to those still running after the grace, and an exit only once all are gone: a
 * process left behind would keep its port and the data folder's locks from the next start.
 */
const stopAll = (code: number): void => {
  if (stopping) return;
  stopping = true;
  for (const child of children.values()) child.kill('SIGTERM');
  const force = setTimeout(() => {
    for (const [name, child] of children) {
      if (!isRunning(child)) continue;
      process.stderr.write(`[launcher] ${name} did not stop in ${STOP_GRACE_MS / 1000} s; killing it\n`);
      child.kill('SIGKILL');
    }
  }, STOP_GRACE_MS);
  const check = setInterval(() => {
    if (![...children.values()].some(isRunning)) {
      clearInterval(check);
      clearTimeout(force);
      process.exit(code);
    }
  }, 50);
};

for (const app of APPS) {
  const child = spawn(process.execPath, [app.entry], { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => prefix(app.name, chunk, process.stdout));
  child.stderr?.on('data', (chunk: Buffer) => prefix(app.name, chunk, process.stderr));
  child.on('exit', (code, signal) => {
    if (!stopping) {
      process.stderr.write(`[launcher] ${app.name} exited (${code ?? signal}); stopping the others\n`);
      stopAll(1);
    }
  });
  children.set(app.name, child);
}

process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));
