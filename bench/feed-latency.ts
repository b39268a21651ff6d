import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blazarDate, launch, percentile } from './bench-http.js';
import { SseClient, type SseMessage } from './sse-client.js';

/**
 * The event feed's live latency: from the append (the entry's `recorded_at`, set by the store in the
 * committing transaction) to an SSE client receiving it, on one machine and one clock. Writes made
 * through the API reach its streams at once; those of the reactor (another process) when the API's
 * store notices the commit (it polls SQLite's data_version every 10 ms). `recorded_at` has millisecond
 * resolution, so figures are whole milliseconds, rounded down by up to 1 ms.
 */

const HOSTS = 100;
/** Leases starting now (the reactor starts each: its events come from another process), then future ones. */
const STARTING_NOW = 60;
const FUTURE = 240;

interface Entry {
  readonly recorded_at: string;
  readonly actor: { readonly system: string | null };
}

export interface FeedFigures {
  readonly clients: number;
  readonly events_received_per_client: number;
  readonly api_writes_p50_ms: number;
  readonly api_writes_p95_ms: number;
  readonly reactor_writes_p50_ms: number;
  readonly reactor_writes_p95_ms: number;
  readonly catch_up_ms: number;
}

const latencies = (messages: readonly SseMessage[], fromReactor: boolean, origin: number): number[] =>
  messages.flatMap((message) => {
    const entry = JSON.parse(message.data) as Entry;
    if ((entry.actor.system === 'reactor') !== fromReactor) return [];
    return [Math.max(0, origin + message.receivedAt - Date.parse(entry.recorded_at))];
  });

const round = (value: number): number => +value.toFixed(1);

const measure = async (port: number, clients: number): Promise<FeedFigures> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-feed-'));
  // health probes on any free port: the defaults may be taken by another system on the machine; every client reads as
  // the one admin project, and the late reader joins the others: one more stream than a project's default share
  const system = await launch(port, dataDir, {
    LEASEHOLD_PROJECTOR_HEALTH_PORT: '0',
    LEASEHOLD_REACTOR_HEALTH_PORT: '0',
    LEASEHOLD_FEED_MAX_STREAMS_PER_TENANT: String(clients + 1),
  });
  const base = `http://127.0.0.1:${port}`;
  const streams: SseClient[] = [];
  try {
    for (let i = 1; i <= HOSTS; i++) await system.call('POST', '/v1/os-hosts', { name: `feed-${i}` });
    streams.push(...(await Promise.all(Array.from({ length: clients }, () => SseClient.open(`${base}/v1/events?after=0`)))));
    // performance.now() of the messages is turned into wall-clock time with this origin
    const origin = Date.now() - performance.now();
    const future = Math.ceil(Date.now() / 3600_000) * 3600_000 + 24 * 3600_000;
    for (let i = 0; i < STARTING_NOW + FUTURE; i++) {
      const start = i < STARTING_NOW ? 'now' : blazarDate(future + i * 600_000);
      const end = i < STARTING_NOW ? blazarDate(Date.now() + 3600_000 * 4) : blazarDate(future + i * 600_000 + 3600_000);
      const reservations = [{ resource_type: 'physical:host', min: 1, max: 1, hypervisor_properties: '', resource_properties: '' }];
      const created = await system.call('POST', '/v1/leases', { name: `feed-${i}`, start_date: start, end_date: end, reservations });
      if (created.status !== 201) throw new Error(`lease ${i}: ${created.status} ${JSON.stringify(created.body)}`);
    }
    for (const sse of streams) {
      await sse.waitForCount((message) => message.event === 'lease.created', STARTING_NOW + FUTURE, 30_000);
      await sse.waitForCount((message) => message.event === 'lease.started', STARTING_NOW, 60_000);
    }
    // the hosts' events were already in the log when the clients connected: catch-up, not live
    const live = streams.flatMap((sse) =>
      sse.messages.filter((message) => !message.event.startsWith('host_registry.') && message.event !== 'host.registered'),
    );
    const api = latencies(live, false, origin);
    const reactor = latencies(live, true, origin);
    const catchUp = performance.now();
    const late = await SseClient.open(`${base}/v1/events?after=0`);
    const head = streams[0]!.messages.at(-1)!.id;
    await late.waitFor((message) => message.id === head, 30_000);
    const catchUpMs = performance.now() - catchUp;
    late.close();
    return {
      clients,
      events_received_per_client: streams[0]!.messages.length,
      api_writes_p50_ms: round(percentile(api, 50)),
      api_writes_p95_ms: round(percentile(api, 95)),
      reactor_writes_p50_ms: round(percentile(reactor, 50)),
      reactor_writes_p95_ms: round(percentile(reactor, 95)),
      catch_up_ms: round(catchUpMs),
    };
  } finally {
    for (const sse of streams) sse.close();
    await system.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

/** One client, then ten, each on a fresh system. */
export const runFeedLatency = async (port: number): Promise<FeedFigures[]> => [await measure(port, 1), await measure(port, 10)];

export const feedRows = (figures: readonly FeedFigures[]): string[] =>
  figures.map(
    (f) =>
      `| event feed, ${f.clients} SSE client(s): append -> received p50 / p95 | API writes ${f.api_writes_p50_ms} / ${f.api_writes_p95_ms} ms; reactor writes ${f.reactor_writes_p50_ms} / ${f.reactor_writes_p95_ms} ms; catch-up of ${f.events_received_per_client} events ${f.catch_up_ms} ms | not provided |`,
  );
