import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { connect } from 'amqplib';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { EventData } from '#event-store/event-store.port.js';
import { ChannelCheckpoints } from '#publisher/channel-checkpoints.js';
import { ChannelRunner } from '#publisher/channel-runner.js';
import { OsloNotificationsChannel } from '#publisher/oslo/oslo-notifications.channel.js';
import { osloNotificationsConfigFromEnv } from '#publisher/oslo/oslo-notifications.config.js';
import { percentile } from './bench-http.js';

/**
 * The oslo.messaging notifications channel (docs/notifications.md): publish throughput from a log of
 * lease creations and starts (each one notification, its lease folded from the lease's stream), and
 * latency from an append to an AMQP consumer receiving the notification. Against BENCH_AMQP_URL, or a
 * RabbitMQ of its own (scripts/services/rabbitmq-up.sh on port 62678).
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const AT = '2030-01-01T10:00:00.000Z';

const metadata = (tag: string) => ({ correlationId: tag, causationId: randomUUID(), actor: null, system: 'bench' });

const created = (leaseId: string): EventData => ({
  id: randomUUID(),
  type: 'Lease.Created',
  data: {
    leaseId,
    name: leaseId,
    projectId: 'project-1',
    userId: 'user-1',
    trustId: null,
    startDate: AT,
    endDate: '2030-01-01T18:00:00.000Z',
    beforeEndDate: null,
    reservations: [
      {
        id: `res-${leaseId}`,
        resourceId: `rid-${leaseId}`,
        resourceType: 'physical:host',
        min: 1,
        max: 1,
        hypervisorProperties: '',
        resourceProperties: '',
        beforeEnd: 'default',
        hostIds: ['7'],
      },
    ],
    eventIds: { start: randomUUID(), end: randomUUID(), beforeEnd: randomUUID() },
    createdAt: new Date().toISOString(),
  },
  metadata: metadata(leaseId),
});

const started = (leaseId: string): EventData => ({
  id: randomUUID(),
  type: 'Lease.Started',
  data: { leaseId, at: AT },
  metadata: metadata(leaseId),
});

const waitFor = async (check: () => Promise<boolean>, what: string, timeoutMs = 300_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

const openRunner = (dataDir: string, url: string, topic: string) => {
  const store = SqliteEventStore.open({ file: join(dataDir, 'events.sqlite') });
  const config = osloNotificationsConfigFromEnv({ LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL: url, LEASEHOLD_NOTIFICATIONS_TOPIC: topic });
  if (config === null) throw new Error('bench: no transport URL');
  const channel = new OsloNotificationsChannel(config, store);
  const checkpoints = ChannelCheckpoints.open(join(dataDir, 'publisher.sqlite'));
  const runner = new ChannelRunner({ store, channel, checkpoints });
  const close = async (): Promise<void> => {
    await runner.stop();
    await channel.close();
    checkpoints.close();
    await store.close();
  };
  return { store, runner, close };
};

/** Drops the bench's queue (it holds every notification sent, nobody consuming it). */
const deleteQueue = async (url: string, queue: string): Promise<void> => {
  const connection = await connect(url);
  try {
    const channel = await connection.createChannel();
    await channel.deleteQueue(queue);
  } finally {
    await connection.close();
  }
};

/** Events/s from `leases` leases created and started, already in the log, to the checkpoint reaching its head. */
const throughput = async (url: string, leases: number): Promise<{ events: number; events_per_s: number }> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-oslo-'));
  const topic = `bench${randomUUID().slice(0, 6)}`;
  const { store, runner, close } = openRunner(dataDir, url, topic);
  try {
    for (let done = 0; done < leases; done += 100) {
      const ids = Array.from({ length: 100 }, (_, n) => `tp-${done + n}`);
      await store.appendMultiple(
        ids.map((id) => ({ streamId: `lease-${id}`, expectedRevision: 'no_stream' as const, events: [created(id)] })),
      );
      await store.appendMultiple(ids.map((id) => ({ streamId: `lease-${id}`, expectedRevision: 0, events: [started(id)] })));
    }
    const head = await store.headPosition();
    const begin = performance.now();
    runner.start();
    await waitFor(async () => (await runner.status()).position >= head, 'the publisher to reach the head');
    const seconds = (performance.now() - begin) / 1000;
    return { events: head, events_per_s: Math.round(head / seconds) };
  } finally {
    await close();
    await deleteQueue(url, `${topic}.info`);
    rmSync(dataDir, { recursive: true, force: true });
  }
};

/** Milliseconds from the start of an append (a lease's creation) to an AMQP consumer receiving its notification. */
const endToEnd = async (url: string, count: number, gapMs: number): Promise<{ events: number; p50_ms: number; p95_ms: number }> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-oslo-'));
  const topic = `bench${randomUUID().slice(0, 6)}`;
  const { runner, close } = openRunner(dataDir, url, topic);
  // appends through a connection of their own, as the API's are: the publisher finds them by polling
  const store = SqliteEventStore.open({ file: join(dataDir, 'events.sqlite') });
  const connection = await connect(url);
  const appendedAt = new Map<string, number>();
  const latencies: number[] = [];
  try {
    const channel = await connection.createChannel();
    await channel.assertExchange('openstack', 'topic', { durable: false });
    const { queue } = await channel.assertQueue('', { exclusive: true });
    await channel.bindQueue(queue, 'openstack', `${topic}.info`);
    await channel.consume(
      queue,
      (message) => {
        if (message === null) return;
        const received = performance.now();
        const inner = JSON.parse((JSON.parse(message.content.toString()) as { 'oslo.message': string })['oslo.message']) as {
          payload: { lease_id: string };
        };
        const sent = appendedAt.get(inner.payload.lease_id);
        if (sent !== undefined) latencies.push(received - sent);
      },
      { noAck: true },
    );
    runner.start();
    for (let n = 0; n < count; n++) {
      const leaseId = `e2e-${n}-${randomUUID().slice(0, 8)}`;
      appendedAt.set(leaseId, performance.now());
      await store.appendToStream(`lease-${leaseId}`, 'no_stream', [created(leaseId)]);
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
    await waitFor(async () => latencies.length >= count, 'every notification at the consumer', 60_000);
    return { events: count, p50_ms: +percentile(latencies, 50).toFixed(1), p95_ms: +percentile(latencies, 95).toFixed(1) };
  } finally {
    await connection.close();
    await close();
    await store.close();
    await deleteQueue(url, `${topic}.info`).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
};

export interface OsloFigures {
  readonly broker: string;
  readonly publish: { events: number; events_per_s: number };
  readonly end_to_end: { events: number; p50_ms: number; p95_ms: number };
}

export const runOsloBench = async (): Promise<OsloFigures> => {
  const own = process.env.BENCH_AMQP_URL === undefined ? mkdtempSync(join(tmpdir(), 'leasehold-bench-rabbitmq-')) : null;
  const script = (name: string): string => join(root, 'scripts/services', name);
  const env = { ...process.env, RMQ_ROOT: own ?? '', AMQP_PORT: '62678' };
  try {
    const url =
      process.env.BENCH_AMQP_URL ??
      execFileSync('bash', [script('rabbitmq-up.sh')], { env })
        .toString()
        .trim()
        .split('\n')
        .at(-1) ??
      '';
    const publish = await throughput(url, 10_000);
    const end_to_end = await endToEnd(url, 500, 20);
    return { broker: own === null ? url : 'RabbitMQ 3.10 on loopback', publish, end_to_end };
  } finally {
    if (own !== null) {
      execFileSync('bash', [script('rabbitmq-down.sh')], { env });
      rmSync(own, { recursive: true, force: true });
    }
  }
};

export const osloRows = (figures: OsloFigures): string[] => [
  `| oslo notifications publish, ${figures.publish.events} lease events already in the log, one notification each (${figures.broker}, confirms) | ${figures.publish.events_per_s} events/s | | |`,
  `| oslo notifications end to end, append -> AMQP consumer, ${figures.end_to_end.events} lease creations 20 ms apart, p50 / p95 | ${figures.end_to_end.p50_ms} ms / ${figures.end_to_end.p95_ms} ms | | |`,
];

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runOsloBench().then(
    (figures) => {
      console.log(JSON.stringify(figures, null, 2));
      for (const row of osloRows(figures)) console.log(row);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
