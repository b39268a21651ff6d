import { execFile } from 'node:child_process';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Consumer, type EachMessagePayload, Kafka, logLevel } from 'kafkajs';
import { ROOT } from './system.js';

const run = promisify(execFile);

/**
 * The cluster the Kafka tests use: real brokers when LEASEHOLD_TEST_KAFKA_BROKERS names them, else the
 * mock cluster .ci/run starts (scripts/services/kafka-mock-up.sh, LEASEHOLD_TEST_KAFKA_MOCK_BROKERS).
 */
export const TEST_KAFKA_BROKERS = process.env.LEASEHOLD_TEST_KAFKA_BROKERS || process.env.LEASEHOLD_TEST_KAFKA_MOCK_BROKERS || '';
export const AGAINST_REAL_KAFKA = (process.env.LEASEHOLD_TEST_KAFKA_BROKERS ?? '') !== '';

/** One message as a consumer received it, with the CloudEvents envelope parsed. */
export interface Received {
  readonly topic: string;
  readonly partition: number;
  readonly key: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly event: {
    readonly id: string;
    readonly type: string;
    readonly subject: string;
    readonly position: number;
    readonly [field: string]: unknown;
  };
}

const received = ({ topic, partition, message }: EachMessagePayload): Received => ({
  topic,
  partition,
  key: message.key?.toString() ?? '',
  headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)])),
  event: JSON.parse(message.value?.toString() ?? 'null') as Received['event'],
});

export interface TestConsumer {
  readonly messages: Received[];
  /** Partitions the group gave this member at its latest join (0 before it joined). */
  assignedPartitions(): number;
  /** Times this member has joined the group (a rebalance makes every member join again). */
  joins(): number;
  /** Resolves once `check(messages)` holds, polling; fails after `timeoutMs`. */
  until(check: (messages: readonly Received[]) => boolean, timeoutMs: number, what: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A consumer group member reading `topics` from the beginning, keeping every message it gets.
 *
 * librdkafka's mock cluster sometimes answers a SyncGroup that races a rebalance with INVALID_REQUEST
 * (a real broker answers REBALANCE_IN_PROGRESS, which kafkajs retries); kafkajs takes that error as
 * fatal and stops the member. The member then joins again with a new consumer, as a subscriber's
 * supervisor would, so the group keeps two members.
 */
export const consume = async (brokers: string, groupId: string, topics: readonly string[]): Promise<TestConsumer> => {
  const kafka = new Kafka({ clientId: `test-${groupId}`, brokers: brokers.split(','), logLevel: logLevel.NOTHING });
  const messages: Received[] = [];
  let assigned = 0;
  let joins = 0;
  let stopping = false;
  let current: Consumer | undefined;
  const join = async (): Promise<void> => {
    const consumer = kafka.consumer({
      groupId,
      sessionTimeout: 10_000,
      heartbeatInterval: 1_000,
      maxWaitTimeInMs: 500,
      allowAutoTopicCreation: true,
    });
    current = consumer;
    await consumer.connect();
    for (const topic of topics) await consumer.subscribe({ topic, fromBeginning: true });
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      joins++;
      assigned = Object.values(payload.memberAssignment).reduce((sum, partitions) => sum + partitions.length, 0);
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart || stopping) return;
      assigned = 0;
      void consumer
        .disconnect()
        .catch(() => undefined)
        .then(() => (stopping ? undefined : join()));
    });
    await consumer.run({ eachMessage: async (payload) => void messages.push(received(payload)) });
  };
  await join();
  return {
    messages,
    assignedPartitions: () => assigned,
    joins: () => joins,
    until: async (check, timeoutMs, what) => {
      const deadline = Date.now() + timeoutMs;
      while (!check(messages)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${messages.length} messages received)`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    stop: async () => {
      stopping = true;
      await current?.disconnect();
    },
  };
};

/** Messages per topic the cluster holds (sum of the partitions' high watermarks). */
export const topicMessageCount = async (brokers: string, topic: string): Promise<number> => {
  const admin = new Kafka({ clientId: 'test-admin', brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((sum, partition) => sum + Number(partition.high), 0);
  } finally {
    await admin.disconnect();
  }
};

/** A mock cluster of the test's own (so it can stop it), through the project's scripts. */
export const startMockCluster = async (stateDir: string): Promise<string> => {
  const { stdout } = await run('bash', [join(ROOT, 'scripts/services/kafka-mock-up.sh'), '3', stateDir]);
  return stdout.trim().split('\n').at(-1) ?? '';
};

export const stopMockCluster = async (stateDir: string): Promise<void> => {
  await run('bash', [join(ROOT, 'scripts/services/kafka-mock-down.sh'), stateDir]);
};

/**
 * A fixed address in front of a cluster whose ports change (each mock picks new ones), as a real
 * cluster's DNS name stays while its brokers restart: clients bootstrap through it and find the
 * brokers from the metadata it relays.
 */
export class StableAddress {
  private target = '';
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  static async open(): Promise<StableAddress> {
    const address = new StableAddress(createServer());
    address.server.on('connection', (client) => address.forward(client));
    await new Promise<void>((resolve) => address.server.listen(0, '127.0.0.1', resolve));
    return address;
  }

  get brokers(): string {
    const bound = this.server.address();
    return typeof bound === 'object' && bound !== null ? `127.0.0.1:${bound.port}` : '';
  }

  pointAt(bootstrap: string): void {
    this.target = bootstrap.split(',')[0] ?? '';
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private forward(client: Socket): void {
    const [host, port] = this.target.split(':');
    const upstream = connect(Number(port), host ?? '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    }
    client.pipe(upstream).on('error', () => client.destroy());
    upstream.pipe(client).on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  }
}
