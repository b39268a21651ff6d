/**
 * The Kafka channel (docs/kafka.md) over real TCP with kafkajs: against librdkafka's mock cluster that
 * .ci/run starts (scripts/services/kafka-mock-up.sh, LEASEHOLD_TEST_KAFKA_MOCK_BROKERS), or against real
 * brokers when LEASEHOLD_TEST_KAFKA_BROKERS names them. The outage case stops and restarts a mock of its
 * own, so it runs only on the mock. Skipped when neither is set.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { EVENT_CATALOGUE } from '#application/history/event-catalogue.js';
import { PUBLISHED_TYPES, sampleOf } from '#application/outbound/testing/published-samples.js';
import { SUBJECT_PATH_NAMES } from '#publisher/cloud-event.js';
import { api } from '../helpers/http.js';
import { blazarDate, hostReservation } from '../helpers/http.js';
import {
  AGAINST_REAL_KAFKA,
  type Received,
  StableAddress,
  TEST_KAFKA_BROKERS,
  consume,
  startMockCluster,
  stopMockCluster,
  topicMessageCount,
} from '../helpers/kafka.js';
import { ROOT, eventually, freePort, startSystem } from '../helpers/system.js';

/** The outage lasts this long (the minute; shorter only for a local run). */
const OUTAGE_MS = Number(process.env.LEASEHOLD_TEST_KAFKA_OUTAGE_MS ?? 60_000);

const uniquePrefix = (): string => `t${randomUUID().slice(0, 8)}`;

/** Dedupes by CloudEvents id (what the channel asks consumers to do), keeping first arrivals. */
const firstArrivals = (messages: readonly Received[]): Received[] => {
  const seen = new Set<string>();
  return messages.filter((m) => !seen.has(m.event.id) && seen.add(m.event.id));
};

/** Positions per topic and key in arrival order: what Kafka orders (one partition each). */
const positionsByKey = (messages: readonly Received[]): Map<string, number[]> => {
  const byKey = new Map<string, number[]>();
  for (const m of messages) byKey.set(`${m.topic}/${m.key}`, [...(byKey.get(`${m.topic}/${m.key}`) ?? []), m.event.position]);
  return byKey;
};

const ascending = (values: readonly number[]): boolean => values.every((v, i) => i === 0 || v > (values[i - 1] ?? -Infinity));

interface LedgerRow {
  readonly position: number;
  readonly event_id: string;
  readonly stream_id: string;
  readonly type: string;
}

const ledger = (dataDir: string): LedgerRow[] => {
  const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT position, event_id, stream_id, type FROM events ORDER BY position').all() as LedgerRow[];
  } finally {
    db.close();
  }
};

const checkpointOf = (dataDir: string): number => {
  if (!existsSync(join(dataDir, 'publisher.sqlite'))) return 0;
  const db = new Database(join(dataDir, 'publisher.sqlite'), { readonly: true });
  try {
    return (
      (db.prepare("SELECT position FROM channel_checkpoints WHERE channel = 'kafka'").get() as { position: number } | undefined)
        ?.position ?? 0
    );
  } finally {
    db.close();
  }
};

interface Publisher {
  readonly child: ChildProcess;
  readonly healthUrl: string;
  readonly output: () => string;
}

const startPublisher = async (dataDir: string, env: Readonly<Record<string, string>>): Promise<Publisher> => {
  const port = await freePort();
  let log = '';
  const child = spawn(process.execPath, [join(ROOT, 'dist/apps/publisher/src/main.js')], {
    env: { ...process.env, LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_PUBLISHER_HEALTH_PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  return { child, healthUrl: `http://127.0.0.1:${port}`, output: () => log };
};

const stopProcess = (child: ChildProcess, signal: NodeJS.Signals): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });

interface ChannelDetail {
  readonly position: number;
  readonly head: number;
  readonly lag: { readonly positions: number; readonly seconds: number };
  readonly failing: { readonly error: string; readonly attempts: number } | null;
  readonly lastFailure: { readonly error: string } | null;
}

const readyz = async (healthUrl: string): Promise<{ status: number; channel: ChannelDetail } | undefined> => {
  try {
    const response = await fetch(`${healthUrl}/readyz`);
    const body = (await response.json()) as { channels: ChannelDetail[] };
    const channel = body.channels[0];
    return channel === undefined ? undefined : { status: response.status, channel };
  } catch {
    return undefined;
  }
};

/** Appends `count` renames spread over `leases` leases straight to the log, `chunk` per commit `pauseMs` apart, as another writer would. */
const appendRenames = async (dataDir: string, tag: string, leases: number, count: number, chunk = 25, pauseMs = 0): Promise<void> => {
  const store = SqliteEventStore.open({ file: join(dataDir, 'events.sqlite') });
  const rename = (n: number) => {
    const leaseId = `${tag}-lease-${n % leases}`;
    const data = { leaseId, name: `${tag}-${n}`, renamedAt: new Date().toISOString() };
    return {
      streamId: `lease-${leaseId}`,
      event: {
        id: randomUUID(),
        type: 'Lease.Renamed',
        data,
        metadata: { correlationId: tag, causationId: tag, actor: null, system: 'test' },
      },
    };
  };
  try {
    for (let done = 0; done < count; done += chunk) {
      const byStream = new Map<string, ReturnType<typeof rename>['event'][]>();
      for (let n = done; n < Math.min(done + chunk, count); n++) {
        const { streamId, event } = rename(n);
        byStream.set(streamId, [...(byStream.get(streamId) ?? []), event]);
      }
      await store.appendMultiple([...byStream].map(([streamId, events]) => ({ streamId, expectedRevision: 'any' as const, events })));
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  } finally {
    await store.close();
  }
};

const runPublisherUntilExit = (dataDir: string, env: Readonly<Record<string, string>>): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/apps/publisher/src/main.js')], {
      env: { ...process.env, LEASEHOLD_KAFKA_BROKERS: '', LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_PUBLISHER_HEALTH_PORT: 'off', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });

describe('publisher configuration', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-publisher-config-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('with no channel configured it says so and exits 0', async () => {
    const result = await runPublisherUntilExit(dataDir, {});
    expect(result.code).toBe(0);
    expect(result.output).toContain('no outbound channel configured');
  });

  it('refuses acks=0 at start, naming the variable', async () => {
    const result = await runPublisherUntilExit(dataDir, { LEASEHOLD_KAFKA_BROKERS: '127.0.0.1:1', LEASEHOLD_KAFKA_ACKS: '0' });
    expect(result.code).toBe(1);
    expect(result.output).toContain("LEASEHOLD_KAFKA_ACKS must be all (-1) or 1, got '0'");
  });
});

describe.skipIf(TEST_KAFKA_BROKERS === '')('Kafka channel (publisher)', () => {
  const dirs: string[] = [];
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'leasehold-kafka-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('every event type of the catalogue arrives once, in log order per key, at a consumer group of two', async () => {
    const prefix = uniquePrefix();
    const dataDir = tempDir();
    // six keys per topic: each member of the group of two gets some of them, whatever the partitions' assignment
    const subjects = ['a', 'b', 'c', 'd', 'e', 'f'].map((k) => `${prefix}-${k}`);
    const store = SqliteEventStore.open({ file: join(dataDir, 'events.sqlite') });
    try {
      // type after type, each for three subjects: every key's events are spread over the whole log
      for (const type of PUBLISHED_TYPES) {
        for (const subject of subjects) {
          const { streamId, data } = sampleOf(type, subject);
          await store.appendToStream(streamId, 'any', [
            { id: randomUUID(), type, data, metadata: { correlationId: prefix, causationId: prefix, actor: null, system: 'test' } },
          ]);
        }
      }
    } finally {
      await store.close();
    }
    const rows = ledger(dataDir);
    const topics = SUBJECT_PATH_NAMES.map((t) => `${prefix}.${t}`);
    const members = [
      await consume(TEST_KAFKA_BROKERS, `${prefix}-group`, topics),
      await consume(TEST_KAFKA_BROKERS, `${prefix}-group`, topics),
    ];
    // both members hold partitions before anything is published, so the group shares the work
    await eventually(
      async () => (members.every((member) => member.assignedPartitions() > 0) ? true : undefined),
      60_000,
      'both members to get partitions',
    );
    const joined = members.map((member) => member.joins());
    const publisher = await startPublisher(dataDir, {
      LEASEHOLD_KAFKA_BROKERS: TEST_KAFKA_BROKERS,
      LEASEHOLD_KAFKA_TOPIC_PREFIX: prefix,
      LEASEHOLD_PUBLISHER_BATCH_SIZE: '16',
    });
    const all = (): Received[] => members.flatMap((member) => member.messages);
    try {
      await eventually(
        async () => (new Set(all().map((m) => m.event.id)).size >= rows.length ? true : undefined),
        90_000,
        `${rows.length} events at the group`,
      );
      let held = 0;
      for (const topic of topics) held += await topicMessageCount(TEST_KAFKA_BROKERS, topic);
      expect(held).toBe(rows.length);
      // the group shared the work, unless the cluster rebalanced it meanwhile (a member that missed its heartbeats
      // under load leaves, and the other takes every partition): that is the broker's choice, not the publisher's
      if (members.every((member, i) => member.joins() === joined[i]))
        expect(members.map((member) => member.messages.length > 0)).toEqual([true, true]);

      const arrived = firstArrivals(all());
      expect(arrived.map((m) => m.event.id).sort()).toEqual(rows.map((row) => row.event_id).sort());
      const published = new Set(PUBLISHED_TYPES.map((type) => EVENT_CATALOGUE[type].publicType));
      expect(new Set(arrived.map((m) => m.event.type))).toEqual(published);
      for (const type of published)
        expect(
          arrived
            .filter((m) => m.event.type === type)
            .map((m) => m.key)
            .sort(),
          type,
        ).toEqual([...subjects].sort());
      // each member saw its keys' events in log order
      for (const member of members)
        for (const [key, positions] of positionsByKey(firstArrivals(member.messages)))
          expect(ascending(positions), `order of ${key}`).toBe(true);
      expect(new Set(members.flatMap((member) => [...positionsByKey(member.messages).keys()])).size).toBe(subjects.length * topics.length);
    } finally {
      for (const member of members) await member.stop();
      await stopProcess(publisher.child, 'SIGTERM');
    }
  }, 150_000);

  it('every event a workload makes through the API arrives once, in log order per key, as a CloudEvent with trace headers', async () => {
    const prefix = uniquePrefix();
    const system = await startSystem({
      env: {
        LEASEHOLD_KAFKA_BROKERS: TEST_KAFKA_BROKERS,
        LEASEHOLD_KAFKA_TOPIC_PREFIX: prefix,
        LEASEHOLD_PUBLISHER_HEALTH_PORT: String(await freePort()),
      },
    });
    const topics = SUBJECT_PATH_NAMES.map((t) => `${prefix}.${t}`);
    const consumer = await consume(TEST_KAFKA_BROKERS, `${prefix}-group`, topics);
    try {
      const client = api(system.url);
      for (const name of ['k-host-1', 'k-host-2', 'k-host-3']) expect((await client.post('/v1/os-hosts', { name })).status).toBe(201);
      expect((await client.post('/v1/floatingips', { floating_network_id: randomUUID(), floating_ip_address: '10.9.0.1' })).status).toBe(
        201,
      );
      const leases: string[] = [];
      for (let i = 0; i < 3; i++) {
        // two start now; the third, deleted below, is still pending then
        const start = i < 2 ? 'now' : blazarDate(120);
        const created = await client.post('/v1/leases', {
          name: `k-lease-${i}`,
          start_date: start,
          end_date: blazarDate(180 + i),
          reservations: [hostReservation(1)],
          events: [],
        });
        expect(created.status).toBe(201);
        leases.push(created.body.lease.id as string);
      }
      expect((await client.put(`/v1/leases/${leases[0]}`, { name: 'k-lease-renamed' })).status).toBe(200);
      expect((await client.delete(`/v1/leases/${leases[2]}`)).status).toBe(204);
      // the reactor starts the first two leases: their lease.started must be published too
      const catalogued = () => ledger(system.dataDir).filter((row) => !row.stream_id.startsWith('audit-'));
      await eventually(
        async () => (catalogued().filter((r) => r.type === 'Lease.Started').length >= 2 ? true : undefined),
        30_000,
        'two leases started',
      );
      const publisherHealth = system.output().match(/"service":"publisher".*?"url":"([^"]+)"/)?.[1] ?? '';
      // the reactor goes on recording outcomes: compare up to a moment the publisher was level with the log
      const ready = await eventually(
        async () => {
          const r = await readyz(publisherHealth);
          return r?.channel.lag.positions === 0 && r.channel.position >= (catalogued().at(-1)?.position ?? 0) ? r : undefined;
        },
        30_000,
        'publisher caught up',
      );
      expect(ready.status).toBe(200);
      expect(ready.channel).toMatchObject({ failing: null, lag: { positions: 0, seconds: 0 } });
      const expected = catalogued().filter((row) => row.position <= ready.channel.position);
      const expectedIds = new Set(expected.map((row) => row.event_id));
      await consumer.until(
        (messages) => messages.filter((m) => expectedIds.has(m.event.id)).length >= expected.length,
        60_000,
        `${expected.length} events`,
      );
      let held = 0;
      for (const topic of topics) held += await topicMessageCount(TEST_KAFKA_BROKERS, topic).catch(() => 0);
      await consumer.until((messages) => messages.length >= held, 60_000, `the ${held} messages the topics hold`);

      const arrived = firstArrivals(consumer.messages);
      expect(
        arrived
          .filter((m) => m.event.position <= ready.channel.position)
          .map((m) => m.event.id)
          .sort(),
      ).toEqual([...expectedIds].sort());
      expect(new Set(expected.map((row) => row.type)).size).toBeGreaterThanOrEqual(10);
      // once: the topics hold one message per event (a consumer group alone may see one twice in a rebalance)
      expect(arrived).toHaveLength(held);
      for (const [key, positions] of positionsByKey(arrived))
        expect(ascending(positions), `order of ${key}: ${positions.join(',')}`).toBe(true);

      const started = arrived.find((m) => m.event.type === 'lease.started' && m.key === leases[0]);
      expect(started?.topic).toBe(`${prefix}.leases`);
      expect(started?.event).toMatchObject({
        specversion: '1.0',
        source: '/leasehold',
        subject: `leases/${leases[0]}`,
        datacontenttype: 'application/json',
        dataschema: 'urn:leasehold:events:lease.started:v1',
        data: { lease_id: leases[0] },
      });
      expect(started?.headers).toMatchObject({ 'content-type': 'application/cloudevents+json; charset=UTF-8', actor_system: 'reactor' });
      const createdMessage = arrived.find((m) => m.event.type === 'lease.created' && m.key === leases[0]);
      expect(createdMessage?.headers.correlation_id).toMatch(/^req-/);
      expect(createdMessage?.headers.request_id).toBe(createdMessage?.headers.correlation_id);
      expect(createdMessage?.headers.actor_project_id).toEqual(expect.any(String));
      expect(arrived.filter((m) => m.topic === `${prefix}.hosts`).map((m) => m.event.type)).toContain('host.registered');
      expect(arrived.find((m) => m.event.type === 'floating_ip.registered')?.topic).toBe(`${prefix}.floatingips`);
    } finally {
      await consumer.stop();
      await system.stop();
    }
  }, 150_000);

  it('SIGKILL of the publisher at random moments during a burst loses nothing and repeats only unacknowledged batches', async () => {
    const prefix = uniquePrefix();
    const dataDir = tempDir();
    const batchSize = 40;
    const env = {
      LEASEHOLD_KAFKA_BROKERS: TEST_KAFKA_BROKERS,
      LEASEHOLD_KAFKA_TOPIC_PREFIX: prefix,
      LEASEHOLD_PUBLISHER_BATCH_SIZE: String(batchSize),
    };
    await appendRenames(dataDir, prefix, 1, 1);
    // about 6 s of appends, through the kills
    const burst = appendRenames(dataDir, prefix, 25, 3000, 10, 20);
    const checkpointsAtKill: number[] = [];
    for (let round = 0; round < 6; round++) {
      const publisher = await startPublisher(dataDir, env);
      await eventually(async () => (publisher.output().includes('"event":"start"') ? true : undefined), 30_000, 'the publisher to start');
      // a random moment of its publishing, not a wait for a state
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.floor(Math.random() * 700)));
      await stopProcess(publisher.child, 'SIGKILL');
      checkpointsAtKill.push(checkpointOf(dataDir));
    }
    await burst;
    const last = await startPublisher(dataDir, env);
    const consumer = await consume(TEST_KAFKA_BROKERS, `${prefix}-group`, [`${prefix}.leases`]);
    try {
      const rows = ledger(dataDir);
      await eventually(async () => (checkpointOf(dataDir) === rows.at(-1)?.position ? true : undefined), 60_000, 'the publisher caught up');
      const held = await topicMessageCount(TEST_KAFKA_BROKERS, `${prefix}.leases`);
      await consumer.until((messages) => messages.length >= held, 60_000, `${held} messages`);

      const byId = new Map<string, number>();
      for (const m of consumer.messages) byId.set(m.event.id, (byId.get(m.event.id) ?? 0) + 1);
      expect([...byId.keys()].sort()).toEqual(rows.map((row) => row.event_id).sort());
      // a repeat is an event past the checkpoint of some kill, within the batch that was in flight
      const positionOf = new Map(rows.map((row) => [row.event_id, row.position]));
      const repeated = [...byId].filter(([, n]) => n > 1).map(([id]) => positionOf.get(id) ?? -1);
      for (const position of repeated)
        expect(
          checkpointsAtKill.some((c) => position > c && position <= c + batchSize),
          `repeat at ${position}, kills at ${checkpointsAtKill.join(',')}`,
        ).toBe(true);
      expect(held - byId.size).toBeLessThanOrEqual(checkpointsAtKill.length * batchSize);
      for (const [key, positions] of positionsByKey(firstArrivals(consumer.messages)))
        expect(ascending(positions), `order of ${key}`).toBe(true);
      expect(new Set(checkpointsAtKill).size).toBeGreaterThan(1);
    } finally {
      await consumer.stop();
      await stopProcess(last.child, 'SIGTERM');
    }
  }, 150_000);

  it.skipIf(AGAINST_REAL_KAFKA)(
    'a cluster stopped for a minute and restarted empty gets what the publisher re-sends from its checkpoint',
    async () => {
      const prefix = uniquePrefix();
      const dataDir = tempDir();
      const mockDir = tempDir();
      const address = await StableAddress.open();
      address.pointAt(await startMockCluster(mockDir));
      const publisher = await startPublisher(dataDir, {
        LEASEHOLD_KAFKA_BROKERS: address.brokers,
        LEASEHOLD_KAFKA_TOPIC_PREFIX: prefix,
        LEASEHOLD_PUBLISHER_MAX_RETRY_SECONDS: '2',
      });
      try {
        await appendRenames(dataDir, `${prefix}-before`, 5, 200);
        const before = ledger(dataDir);
        await eventually(
          async () => ((await readyz(publisher.healthUrl))?.channel.position === before.at(-1)?.position ? true : undefined),
          30_000,
          'published before the outage',
        );

        await stopMockCluster(mockDir);
        await appendRenames(dataDir, `${prefix}-during`, 5, 300);
        const down = await eventually(
          async () => {
            const r = await readyz(publisher.healthUrl);
            return r?.channel.failing !== null && r?.channel.failing !== undefined ? r : undefined;
          },
          30_000,
          'the publisher to see the cluster down',
        );
        expect(down.status).toBe(503);
        expect(down.channel.position).toBe(before.at(-1)?.position);
        expect(down.channel.lag.positions).toBe(300);
        expect(down.channel.lag.seconds).toBeGreaterThan(0);
        // the outage itself: nothing to wait for but the time it lasts
        await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));

        address.pointAt(await startMockCluster(mockDir));
        const all = ledger(dataDir);
        const caughtUp = await eventually(
          async () => {
            const r = await readyz(publisher.healthUrl);
            return r?.channel.position === all.at(-1)?.position ? r : undefined;
          },
          60_000,
          'the publisher to catch up after the restart',
        );
        expect(caughtUp.status).toBe(200);
        expect(caughtUp.channel.lastFailure).not.toBeNull();

        const consumer = await consume(address.brokers, `${prefix}-group`, [`${prefix}.leases`]);
        try {
          const during = all.filter((row) => row.position > (before.at(-1)?.position ?? 0));
          await consumer.until((messages) => messages.length >= during.length, 60_000, `${during.length} re-sent events`);
          expect(
            firstArrivals(consumer.messages)
              .map((m) => m.event.id)
              .sort(),
          ).toEqual(during.map((row) => row.event_id).sort());
          expect(consumer.messages).toHaveLength(during.length);
        } finally {
          await consumer.stop();
        }
      } finally {
        await stopProcess(publisher.child, 'SIGTERM');
        await stopMockCluster(mockDir);
        await address.close();
      }
    },
    240_000,
  );

  it('admissions succeed and leases start while Kafka is down; the publisher reports its lag and failure', async () => {
    const deadPort = await freePort();
    const system = await startSystem({
      env: {
        LEASEHOLD_KAFKA_BROKERS: `127.0.0.1:${deadPort}`,
        LEASEHOLD_PUBLISHER_HEALTH_PORT: String(await freePort()),
        LEASEHOLD_PUBLISHER_MAX_RETRY_SECONDS: '1',
      },
    });
    try {
      const client = api(system.url);
      expect((await client.post('/v1/os-hosts', { name: 'down-host-1' })).status).toBe(201);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const created = await client.post('/v1/leases', {
          name: `down-${i}`,
          start_date: 'now',
          end_date: blazarDate(60 + i),
          reservations: [hostReservation(1)],
          events: [],
        });
        if (i === 0) expect(created.status, JSON.stringify(created.body)).toBe(201);
        if (created.status === 201) ids.push(created.body.lease.id as string);
      }
      await eventually(
        async () => ((await client.get(`/v1/leases/${ids[0]}`)).body.lease.status === 'ACTIVE' ? true : undefined),
        30_000,
        'the lease to start',
      );
      const publisherHealth = system.output().match(/"service":"publisher".*?"url":"([^"]+)"/)?.[1] ?? '';
      const down = await eventually(
        async () => {
          const r = await readyz(publisherHealth);
          return r !== undefined && r.channel.failing !== null && r.channel.lag.positions > 0 ? r : undefined;
        },
        30_000,
        'the publisher to report the channel failing',
      );
      expect(down.status).toBe(503);
      expect(down.channel.position).toBe(0);
      expect(down.channel.failing?.error).toEqual(expect.any(String));
    } finally {
      await system.stop();
    }
  }, 120_000);

  it("docs/kafka.md's subscriber example reacts to a lease start", async () => {
    const prefix = uniquePrefix();
    const doc = readFileSync(join(ROOT, 'docs/kafka.md'), 'utf8');
    const example = /```js subscriber-example\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toBeDefined();
    // beside node_modules, so the example's own `import ... from 'kafkajs'` resolves as in a subscriber's project
    const script = join(ROOT, 'dist', `${prefix}-subscriber-example.mjs`);
    writeFileSync(script, example ?? '');
    const system = await startSystem({
      env: {
        LEASEHOLD_KAFKA_BROKERS: TEST_KAFKA_BROKERS,
        LEASEHOLD_KAFKA_TOPIC_PREFIX: prefix,
        LEASEHOLD_PUBLISHER_HEALTH_PORT: String(await freePort()),
      },
    });
    let output = '';
    const subscriber = spawn(process.execPath, [script], {
      env: { ...process.env, KAFKA_BROKERS: TEST_KAFKA_BROKERS, TOPIC: `${prefix}.leases`, GROUP: `${prefix}-example` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    subscriber.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    subscriber.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const client = api(system.url);
      expect((await client.post('/v1/os-hosts', { name: 'example-host' })).status).toBe(201);
      const created = await client.post('/v1/leases', {
        name: 'example',
        start_date: 'now',
        end_date: blazarDate(60),
        reservations: [hostReservation(1)],
        events: [],
      });
      expect(created.status).toBe(201);
      const leaseId = created.body.lease.id as string;
      await eventually(
        async () => (output.includes(`lease ${leaseId} started`) ? true : undefined),
        60_000,
        `the example to print the start of ${leaseId}: ${output}`,
      );
    } finally {
      await stopProcess(subscriber, 'SIGTERM');
      await system.stop();
      rmSync(script, { force: true });
    }
  }, 120_000);
});
