import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { EventData } from '#event-store/event-store.port.js';
import { ChannelCheckpoints } from '#publisher/channel-checkpoints.js';
import { ChannelRunner } from '#publisher/channel-runner.js';
import { KafkaChannel } from '#publisher/kafka/kafka.channel.js';
import { kafkaConfigFromEnv } from '#publisher/kafka/kafka.config.js';
import { blazarDate, launch, percentile } from './bench-http.js';
import { freePort } from './system-processes.js';

/**
 * The Kafka channel (docs/kafka.md): publish throughput from a log of renames, latency from append to a
 * consumer group receiving the event, and admission latency with the channel off and with its brokers down.
 * Against BENCH_KAFKA_BROKERS, or a mock cluster of its own (scripts/services/kafka-mock-up.sh).
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const rename = (tag: string, n: number, leases: number): { streamId: string; event: EventData } => {
  const leaseId = `${tag}-${n % leases}`;
  const data = { leaseId, name: `${tag}-${n}`, renamedAt: new Date().toISOString() };
  return {
    streamId: `lease-${leaseId}`,
    event: {
      id: randomUUID(),
      type: 'Lease.Renamed',
      data,
      metadata: { correlationId: tag, causationId: tag, actor: null, system: 'bench' },
    },
  };
};

const waitFor = async (check: () => Promise<boolean>, what: string, timeoutMs = 300_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

const openRunner = (dataDir: string, brokers: string, prefix: string) => {
  const store = SqliteEventStore.open({ file: join(dataDir, 'events.sqlite') });
  const config = kafkaConfigFromEnv({ LEASEHOLD_KAFKA_BROKERS: brokers, LEASEHOLD_KAFKA_TOPIC_PREFIX: prefix });
  if (config === null) throw new Error('bench: no brokers');
  const channel = new KafkaChannel(config);
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

/** Events/s from a log of `count` events already there to the checkpoint reaching its head. */
const throughput = async (brokers: string, count: number): Promise<{ events: number; events_per_s: number }> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-kafka-'));
  const { store, runner, close } = openRunner(dataDir, brokers, `bench${randomUUID().slice(0, 6)}`);
  try {
    for (let done = 0; done < count; done += 200) {
      const byStream = new Map<string, EventData[]>();
      for (let n = done; n < done + 200; n++) {
        const { streamId, event } = rename('tp', n, 1000);
        byStream.set(streamId, [...(byStream.get(streamId) ?? []), event]);
      }
      await store.appendMultiple([...byStream].map(([streamId, events]) => ({ streamId, expectedRevision: 'any' as const, events })));
    }
    const head = await store.headPosition();
    const started = performance.now();
    runner.start();
    await waitFor(async () => (await runner.status()).position >= head, 'the publisher to reach the head');
    const seconds = (performance.now() - started) / 1000;
    return { events: count, events_per_s: Math.round(count / seconds) };
  } finally {
    await close();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

/** Milliseconds from the start of an append to a consumer group member receiving the event, one event every `gapMs`. */
const endToEnd = async (brokers: string, count: number, gapMs: number): Promise<{ events: number; p50_ms: number; p95_ms: number }> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-kafka-'));
  const prefix = `bench${randomUUID().slice(0, 6)}`;
  const { runner, close } = openRunner(dataDir, brokers, prefix);
  // appends through a connection of their own, as the API's are: the publisher finds them by polling
  const store = SqliteEventStore.open({ file: join(dataDir, 'events.sqlite') });
  const consumer = new Kafka({ clientId: 'bench', brokers: brokers.split(','), logLevel: logLevel.NOTHING }).consumer({
    groupId: `${prefix}-group`,
    // kafkajs' default 5 s long poll: the mock answers a fetch only when it expires, whatever arrived
    maxWaitTimeInMs: 50,
  });
  const appendedAt = new Map<string, number>();
  const latencies: number[] = [];
  try {
    // the topic exists and the group has its partitions before the clock starts
    await store.appendToStream('lease-warmup', 'any', [rename('warmup', 0, 1).event]);
    runner.start();
    await consumer.connect();
    await consumer.subscribe({ topic: `${prefix}.leases`, fromBeginning: true });
    let warm = false;
    await consumer.run({
      eachMessage: async ({ message }) => {
        const received = performance.now();
        const id = (JSON.parse(message.value?.toString() ?? '{}') as { id?: string }).id ?? '';
        const sent = appendedAt.get(id);
        if (sent === undefined) warm = true;
        else latencies.push(received - sent);
      },
    });
    await waitFor(async () => warm, 'the consumer group to get its partitions', 60_000);
    for (let n = 0; n < count; n++) {
      const { streamId, event } = rename('e2e', n, 50);
      appendedAt.set(event.id, performance.now());
      await store.appendToStream(streamId, 'any', [event]);
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
    await waitFor(async () => latencies.length >= count, 'every event at the consumer', 60_000);
    return { events: count, p50_ms: +percentile(latencies, 50).toFixed(1), p95_ms: +percentile(latencies, 95).toFixed(1) };
  } finally {
    await consumer.disconnect();
    await close();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

/** Lease creations one at a time on a fresh system, with `env` (the channel off, or its brokers down). */
const admission = async (env: Readonly<Record<string, string>>, leases: number): Promise<{ p50_ms: number; p95_ms: number }> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-kafka-'));
  const system = await launch(await freePort(), dataDir, {
    LEASEHOLD_PROJECTOR_HEALTH_PORT: '0',
    LEASEHOLD_REACTOR_HEALTH_PORT: '0',
    LEASEHOLD_PUBLISHER_HEALTH_PORT: '0',
    ...env,
  });
  try {
    for (let i = 0; i < 20; i++) await system.call('POST', '/v1/os-hosts', { name: `kafka-bench-${i}` });
    const t0 = Math.ceil(Date.now() / 3600_000) * 3600_000 + 24 * 3600_000;
    const times: number[] = [];
    for (let i = 0; i < leases; i++) {
      const body = {
        name: `kb-${i}`,
        start_date: blazarDate(t0 + i * 600_000),
        end_date: blazarDate(t0 + i * 600_000 + 3 * 3600_000),
        reservations: [{ resource_type: 'physical:host', min: 1, max: 1, hypervisor_properties: '', resource_properties: '' }],
        events: [],
      };
      const result = await system.call('POST', '/v1/leases', body);
      if (result.status !== 201) throw new Error(`bench: lease ${i}: ${result.status} ${JSON.stringify(result.body)}`);
      times.push(result.ms);
    }
    return { p50_ms: +percentile(times, 50).toFixed(1), p95_ms: +percentile(times, 95).toFixed(1) };
  } finally {
    await system.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

export interface KafkaFigures {
  readonly cluster: string;
  readonly publish: { events: number; events_per_s: number };
  readonly end_to_end: { events: number; p50_ms: number; p95_ms: number };
  readonly admission_kafka_off: { p50_ms: number; p95_ms: number };
  readonly admission_kafka_down: { p50_ms: number; p95_ms: number };
}

export const runKafkaBench = async (): Promise<KafkaFigures> => {
  const own = process.env.BENCH_KAFKA_BROKERS === undefined ? mkdtempSync(join(tmpdir(), 'leasehold-bench-kafka-mock-')) : null;
  const script = (name: string): string => join(root, 'scripts/services', name);
  try {
    const brokers =
      process.env.BENCH_KAFKA_BROKERS ??
      execFileSync('bash', [script('kafka-mock-up.sh'), '3', own ?? ''])
        .toString()
        .trim()
        .split('\n')
        .at(-1) ??
      '';
    const publish = await throughput(brokers, 20_000);
    const end_to_end = await endToEnd(brokers, 500, 20);
    const admission_kafka_off = await admission({}, 300);
    const admission_kafka_down = await admission({ LEASEHOLD_KAFKA_BROKERS: `127.0.0.1:${await freePort()}` }, 300);
    return {
      cluster: own === null ? brokers : 'librdkafka mock cluster (3 brokers)',
      publish,
      end_to_end,
      admission_kafka_off,
      admission_kafka_down,
    };
  } finally {
    if (own !== null) {
      execFileSync('bash', [script('kafka-mock-down.sh'), own]);
      rmSync(own, { recursive: true, force: true });
    }
  }
};

export const kafkaRows = (figures: KafkaFigures): string[] => [
  `| Kafka publish, ${figures.publish.events} events already in the log (${figures.cluster}) | ${figures.publish.events_per_s} events/s | | |`,
  `| Kafka end to end, append -> consumer group, ${figures.end_to_end.events} events 20 ms apart, p50 / p95 | ${figures.end_to_end.p50_ms} ms / ${figures.end_to_end.p95_ms} ms | | |`,
  `| create p50 / p95, Kafka channel off -> brokers down (300 leases) | ${figures.admission_kafka_off.p50_ms} / ${figures.admission_kafka_off.p95_ms} ms -> ${figures.admission_kafka_down.p50_ms} / ${figures.admission_kafka_down.p95_ms} ms | | |`,
];

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runKafkaBench().then(
    (figures) => {
      console.log(JSON.stringify(figures, null, 2));
      for (const row of kafkaRows(figures)) console.log(row);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
