import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Call, blazarDate, launch, percentile } from './bench-http.js';
import { type FeedFigures, feedRows, runFeedLatency } from './feed-latency.js';
import { type AsOfFigures, asOfRows, runAsOfWorkload } from './as-of-workload.js';
import { type MixedFigures, mixedRows, runMixedWorkload } from './mixed-workload.js';
import { type KafkaFigures, kafkaRows, runKafkaBench } from './kafka-publish.js';
import { type WebhookFigures, runWebhookBench, webhookRows } from './webhook-deliver.js';
import { type UsageFigures, runUsageBench, usageRows } from './usage-report.js';
import { type OsloFigures, osloRows, runOsloBench } from './oslo-publish.js';
import { type ReplayFigures, replayRows, runReplayBench } from './rebuild-bench.js';
import { type AvailabilityFigures, availabilityRows, runAvailabilityBench } from './availability-query.js';
import { capacityRows } from './capacity-report.js';
import { listRows } from './list-latency.js';
import { type GraphqlPageFigures, graphqlPageRows, runGraphqlPageBench } from './graphql-page.js';
import { type ReadAfterWriteFigures, readAfterWriteRows, runReadAfterWrite } from './read-after-write.js';
import { type CliStartupFigures, cliStartupRows, runCliStartupBench } from './cli-startup.js';
import { type ConcurrentAdmissionFigures, concurrentAdmissionRows, runConcurrentAdmission } from './concurrent-admission.js';
import { type CapabilityAdmissionFigures, capabilityAdmissionRows, runCapabilityAdmission } from './capability-admission.js';

/**
 * `npm run bench`: upstream Blazar's measured workload against a fresh embedded system.
 * Upstream on this machine kind: 1.52 leases/s, p50 684 ms, p95 819 ms (329 ms first 50 -> 798 ms
 * last 50), list with 500 leases p50 196 ms, and 200 acceptances for 100 hosts (8 x 25 same hour).
 * Then a mixed workload (instance slots, flavors, floating IPs) on another fresh system, the event feed's
 * append -> SSE client latency (bench/feed-latency.ts) on two more, the Kafka channel
 * (./kafka-publish.ts; `node dist/bench/kafka-publish.js` runs it alone), the oslo.messaging
 * notifications channel (./oslo-publish.ts; `node dist/bench/oslo-publish.js`), tenant webhooks
 * (./webhook-deliver.ts; `node dist/bench/webhook-deliver.js` alone), usage reports over
 * 100,000 leases (bench/usage-report.ts), and `as_of` reads over a log of 100,000 events on another
 * (`node dist/bench/bench.js as-of`: that one alone),
 * and the replay of a generated log of 100,000 events (`npm run bench:rebuild`: 1,000,000, alone),
 * then availability queries on 2,000 hosts and 20,000 leases (./availability-query.ts;
 * `node dist/bench/availability-query.js` alone), the capacity report and the lists on that calendar
 * (./capacity-report.ts, ./list-latency.ts), and a page of 100 leases through GraphQL and through REST
 * (./graphql-page.ts; `node dist/bench/graphql-page.js` alone), and a client's read of its own new lease, alone and
 * under 8 writing clients (./read-after-write.ts; `node dist/bench/read-after-write.js` alone), and
 * the `leasehold` command line's start and reads (./cli-startup.ts; `node dist/bench/cli-startup.js` alone), and 8 and 32
 * concurrent clients creating one-host leases, plus the store's commits alone (./concurrent-admission.ts;
 * `node dist/bench/concurrent-admission.js` alone).

 */
const PORT = Number(process.env.BENCH_PORT ?? 62234);

const lease = (name: string, startMs: number, hours: number) => ({
  name,
  start_date: blazarDate(startMs),
  end_date: blazarDate(startMs + hours * 3600_000),
  reservations: [{ resource_type: 'physical:host', min: 1, max: 1, hypervisor_properties: '', resource_properties: '' }],
  events: [],
});

/** Any host booked by two reservations whose intervals overlap, counted once per pair. */
const doubleBookings = (allocations: readonly { reservations: { start_date: string; end_date: string }[] }[]): number => {
  let pairs = 0;
  for (const host of allocations) {
    const spans = host.reservations.map((r) => [Date.parse(`${r.start_date}Z`), Date.parse(`${r.end_date}Z`)] as const);
    for (let i = 0; i < spans.length; i++)
      for (let j = i + 1; j < spans.length; j++) {
        const [a, b] = [spans[i]!, spans[j]!];
        if (a[0] < b[1] && b[0] < a[1]) pairs++;
      }
  }
  return pairs;
};

const hostOnly = async (call: Call) => {
  const hostTimes: number[] = [];
  for (let i = 1; i <= 100; i++) hostTimes.push((await call('POST', '/v1/os-hosts', { name: `bench-${String(i).padStart(3, '0')}` })).ms);

  const t0 = Math.ceil(Date.now() / 3600_000) * 3600_000 + 24 * 3600_000;
  const times: number[] = [];
  const wall = performance.now();
  for (let i = 0; i < 500; i++) {
    const result = await call('POST', '/v1/leases', lease(`bench-${i}`, t0 + i * 600_000, 6));
    if (result.status !== 201) throw new Error(`lease ${i}: ${result.status} ${JSON.stringify(result.body)}`);
    times.push(result.ms);
  }
  const seconds = (performance.now() - wall) / 1000;

  const listTimes: number[] = [];
  for (let i = 0; i < 20; i++) listTimes.push((await call('GET', '/v1/leases')).ms);

  const hour = t0 + 30 * 24 * 3600_000;
  const clients = Array.from({ length: 8 }, (_, c) =>
    (async () => {
      let accepted = 0;
      for (let i = 0; i < 25; i++) if ((await call('POST', '/v1/leases', lease(`race-${c}-${i}`, hour, 1))).status === 201) accepted++;
      return accepted;
    })(),
  );
  const accepted = (await Promise.all(clients)).reduce((a, b) => a + b, 0);
  const allocations = (await call('GET', '/v1/os-hosts/allocations')).body.allocations;

  return {
    hosts_registered: 100,
    host_register_p50_ms: +percentile(hostTimes, 50).toFixed(1),
    leases_created: 500,
    leases_per_s: +(500 / seconds).toFixed(1),
    create_p50_ms: +percentile(times, 50).toFixed(1),
    create_p95_ms: +percentile(times, 95).toFixed(1),
    create_p50_first50_ms: +percentile(times.slice(0, 50), 50).toFixed(1),
    create_p50_last50_ms: +percentile(times.slice(-50), 50).toFixed(1),
    list_500_p50_ms: +percentile(listTimes, 50).toFixed(1),
    race_requests: 200,
    race_accepted: accepted,
    double_booked_pairs: doubleBookings(allocations),
  };
};

type HostOnlyFigures = Awaited<ReturnType<typeof hostOnly>>;

const printTable = (
  figures: HostOnlyFigures,
  mixed: MixedFigures | null,
  feed: readonly FeedFigures[],
  kafka: KafkaFigures | null,
  oslo: OsloFigures | null,
  webhooks: WebhookFigures | null,
  usage: UsageFigures | null,
  asOf: AsOfFigures | null,
  replay: ReplayFigures | null,
  availability: AvailabilityFigures | null,
  graphqlPage: GraphqlPageFigures | null,
  readAfterWrite: ReadAfterWriteFigures | null,
  cli: CliStartupFigures | null,
  admission: ConcurrentAdmissionFigures | null,
  capability: CapabilityAdmissionFigures | null,
): void => {
  console.log(`\n| figure | Leasehold | upstream Blazar |\n|---|---|---|`);
  console.log(`| leases/s (500, one at a time) | ${figures.leases_per_s} | 1.52 |`);
  console.log(`| create p50 / p95 | ${figures.create_p50_ms} ms / ${figures.create_p95_ms} ms | 684 ms / 819 ms |`);
  console.log(
    `| create p50 first 50 -> last 50 | ${figures.create_p50_first50_ms} ms -> ${figures.create_p50_last50_ms} ms | 329 ms -> 798 ms |`,
  );
  console.log(`| list with 500 leases p50 | ${figures.list_500_p50_ms} ms | 196 ms |`);
  console.log(
    `| 8 clients x 25 same hour, 100 hosts | ${figures.race_accepted} accepted, ${figures.double_booked_pairs} double-booked | 200 accepted on 25 hosts, each booked 8 times |`,
  );
  for (const row of mixed === null ? [] : mixedRows(mixed)) console.log(row);
  for (const row of feedRows(feed)) console.log(row);
  for (const row of kafka === null ? [] : kafkaRows(kafka)) console.log(row);
  for (const row of oslo === null ? [] : osloRows(oslo)) console.log(row);
  for (const row of webhooks === null ? [] : webhookRows(webhooks)) console.log(row);
  for (const row of usage === null ? [] : usageRows(usage)) console.log(row);
  for (const row of asOf === null ? [] : asOfRows(asOf)) console.log(row);
  for (const row of replay === null ? [] : replayRows(replay)) console.log(row);
  for (const row of availability === null ? [] : availabilityRows(availability)) console.log(row);
  for (const row of availability === null ? [] : capacityRows(availability.capacity)) console.log(row);
  for (const row of availability === null ? [] : listRows(availability.lists)) console.log(row);
  for (const row of graphqlPage === null ? [] : graphqlPageRows(graphqlPage)) console.log(row);
  for (const row of readAfterWrite === null ? [] : readAfterWriteRows(readAfterWrite)) console.log(row);
  for (const row of cli === null ? [] : cliStartupRows(cli)) console.log(row);
  for (const row of admission === null ? [] : concurrentAdmissionRows(admission)) console.log(row);
  for (const row of capability === null ? [] : capabilityAdmissionRows(capability)) console.log(row);
};

const runHostOnly = async (): Promise<HostOnlyFigures> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-'));
  try {
    const system = await launch(PORT, dataDir);
    try {
      return await hostOnly(system.call);
    } finally {
      await system.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
};

const asOfOnly = async (): Promise<void> => {
  const asOf = await runAsOfWorkload(PORT + 2);
  console.log(JSON.stringify(asOf, null, 2));
  for (const row of asOfRows(asOf)) console.log(row);
};

const main = async (): Promise<void> => {
  if (process.argv[2] === 'as-of') return asOfOnly();
  const figures = await runHostOnly();
  console.log(JSON.stringify(figures, null, 2));
  let mixed: MixedFigures | null = null;
  let feed: FeedFigures[] = [];
  let kafka: KafkaFigures | null = null;
  let oslo: OsloFigures | null = null;
  let webhooks: WebhookFigures | null = null;
  let usage: UsageFigures | null = null;
  let asOf: AsOfFigures | null = null;
  let replay: ReplayFigures | null = null;
  let availability: AvailabilityFigures | null = null;
  let graphqlPage: GraphqlPageFigures | null = null;
  let readAfterWrite: ReadAfterWriteFigures | null = null;
  let cli: CliStartupFigures | null = null;
  let admission: ConcurrentAdmissionFigures | null = null;
  let capability: CapabilityAdmissionFigures | null = null;
  try {
    mixed = await runMixedWorkload(PORT + 1);
    console.log(JSON.stringify(mixed, null, 2));
    feed = await runFeedLatency(PORT + 2);
    console.log(JSON.stringify(feed, null, 2));
    kafka = await runKafkaBench();
    console.log(JSON.stringify(kafka, null, 2));
    oslo = await runOsloBench();
    console.log(JSON.stringify(oslo, null, 2));
    webhooks = await runWebhookBench();
    console.log(JSON.stringify(webhooks, null, 2));
    usage = await runUsageBench(PORT + 4);
    console.log(JSON.stringify(usage, null, 2));
    asOf = await runAsOfWorkload(PORT + 5);
    console.log(JSON.stringify(asOf, null, 2));
    replay = await runReplayBench(100_000);
    console.log(JSON.stringify(replay, null, 2));
    availability = await runAvailabilityBench(PORT + 6);
    console.log(JSON.stringify(availability, null, 2));
    graphqlPage = await runGraphqlPageBench(PORT + 7);
    console.log(JSON.stringify(graphqlPage, null, 2));
    readAfterWrite = await runReadAfterWrite(PORT + 8);
    console.log(JSON.stringify(readAfterWrite, null, 2));
    cli = await runCliStartupBench();
    console.log(JSON.stringify(cli, null, 2));
    admission = await runConcurrentAdmission(PORT + 9);
    console.log(JSON.stringify(admission, null, 2));
    capability = await runCapabilityAdmission();
    console.log(JSON.stringify(capability, null, 2));
  } finally {
    printTable(
      figures,
      mixed,
      feed,
      kafka,
      oslo,
      webhooks,
      usage,
      asOf,
      replay,
      availability,
      graphqlPage,
      readAfterWrite,
      cli,
      admission,
      capability,
    );
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
