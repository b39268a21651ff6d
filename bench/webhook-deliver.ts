import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { EventData } from '#event-store/event-store.port.js';
import { sampleOf } from '#application/outbound/testing/published-samples.js';
import { WebhookDeliveries } from '#application/webhooks/webhook-deliveries.store.js';
import { WebhookSecrets } from '#application/webhooks/webhook-secrets.store.js';
import { webhookConfigFromEnv } from '#application/webhooks/webhook.config.js';
import { webhookStream } from '#application/webhooks/webhook.events.js';
import { ChannelCheckpoints } from '#publisher/channel-checkpoints.js';
import { ChannelRunner } from '#publisher/channel-runner.js';
import { WebhookChannel } from '#publisher/webhooks/webhook.channel.js';
import { WebhookWorker } from '#publisher/webhooks/webhook-worker.js';
import { httpSender } from '#publisher/webhooks/webhook-sender.js';
import { percentile } from './bench-http.js';

/**
 * Tenant webhooks (docs/webhooks.md): delivery throughput from a log already holding the events, and
 * latency from an append to the receiver, through the publisher's runner, the webhook channel, its queue
 * and worker, to a node:http receiver on loopback answering 204 at once (in this process: the figures
 * are the publisher's cost, not a network's).
 */
const meta = { correlationId: 'bench', causationId: 'bench', actor: null, system: 'bench' };
const PROJECT = 'bench-project';

const waitFor = async (check: () => boolean, what: string, timeoutMs = 300_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

const rename = (leaseId: string, n: number): EventData => ({
  id: randomUUID(),
  type: 'Lease.Renamed',
  data: { leaseId, name: `b-${n}`, renamedAt: new Date().toISOString() },
  metadata: meta,
});

interface Rig {
  readonly store: SqliteEventStore;
  readonly received: Map<string, number>;
  registerAll(count: number): Promise<void>;
  start(): void;
  close(): Promise<void>;
}

const openRig = async (dataDir: string): Promise<Rig> => {
  const received = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received.set(`${request.url ?? ''} ${String(request.headers['x-leasehold-event-id'])}`, performance.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const store = SqliteEventStore.open({ file: join(dataDir, 'events.sqlite') });
  const deliveries = WebhookDeliveries.open(join(dataDir, 'webhooks.sqlite'));
  const secrets = WebhookSecrets.open(join(dataDir, 'webhook-secrets.sqlite'));
  const checkpoints = ChannelCheckpoints.open(join(dataDir, 'publisher.sqlite'));
  const config = webhookConfigFromEnv({ LEASEHOLD_WEBHOOKS: 'on', LEASEHOLD_WEBHOOK_ALLOWED_TARGETS: '127.0.0.1' });
  const worker = new WebhookWorker({ deliveries, secrets, config, send: httpSender(config.targets) });
  const channel = new WebhookChannel(store, deliveries, worker, '/bench');
  const runner = new ChannelRunner({ store, channel, checkpoints });
  const registerAll = async (count: number): Promise<void> => {
    for (let n = 0; n < count; n++) {
      const webhookId = randomUUID();
      secrets.put(webhookId, 'bench-secret-0123456789', new Date().toISOString());
      const data = {
        webhookId,
        projectId: PROJECT,
        userId: 'u',
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/w${n}`,
        eventTypes: ['*'],
        registeredAt: new Date().toISOString(),
      };
      await store.appendToStream(webhookStream(webhookId), 'no_stream', [
        { id: randomUUID(), type: 'Webhook.Registered', data, metadata: meta },
      ]);
    }
  };
  return {
    store,
    received,
    registerAll,
    start: () => {
      channel.start();
      runner.start();
    },
    close: async () => {
      await runner.stop();
      await channel.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      checkpoints.close();
      secrets.close();
      deliveries.close();
      await store.close();
    },
  };
};

const leasesOf = async (store: SqliteEventStore, count: number): Promise<string[]> => {
  const ids = Array.from({ length: count }, () => randomUUID());
  for (const id of ids)
    await store.appendToStream(`lease-${id}`, 'no_stream', [
      {
        id: randomUUID(),
        type: 'Lease.Created',
        data: { ...(sampleOf('Lease.Created', id).data as object), projectId: PROJECT },
        metadata: meta,
      },
    ]);
  return ids;
};

/** Deliveries/s: `webhooks` webhooks of one project, `events` renames of 50 leases already in the log. */
const throughput = async (
  webhooks: number,
  events: number,
): Promise<{ webhooks: number; deliveries: number; deliveries_per_s: number }> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-webhooks-'));
  const rig = await openRig(dataDir);
  try {
    await rig.registerAll(webhooks);
    const leases = await leasesOf(rig.store, 50);
    for (let done = 0; done < events; done += 200) {
      const byStream = new Map<string, EventData[]>();
      for (let n = done; n < Math.min(done + 200, events); n++) {
        const leaseId = leases[n % leases.length] as string;
        byStream.set(`lease-${leaseId}`, [...(byStream.get(`lease-${leaseId}`) ?? []), rename(leaseId, n)]);
      }
      await rig.store.appendMultiple(
        [...byStream].map(([streamId, batch]) => ({ streamId, expectedRevision: 'any' as const, events: batch })),
      );
    }
    const expected = webhooks * (events + leases.length);
    const started = performance.now();
    rig.start();
    await waitFor(() => rig.received.size >= expected, 'every delivery');
    const seconds = (performance.now() - started) / 1000;
    return { webhooks, deliveries: expected, deliveries_per_s: Math.round(expected / seconds) };
  } finally {
    await rig.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

/** Milliseconds from the start of an append (another connection, as the API's) to the receiver, one event every `gapMs`. */
const endToEnd = async (count: number, gapMs: number): Promise<{ events: number; p50_ms: number; p95_ms: number }> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-webhooks-'));
  const rig = await openRig(dataDir);
  const writer = SqliteEventStore.open({ file: join(dataDir, 'events.sqlite') });
  try {
    await rig.registerAll(1);
    const leases = await leasesOf(writer, 10);
    rig.start();
    await waitFor(() => rig.received.size >= leases.length, 'the warm-up deliveries');
    const appendedAt = new Map<string, number>();
    for (let n = 0; n < count; n++) {
      const leaseId = leases[n % leases.length] as string;
      const event = rename(leaseId, n);
      appendedAt.set(event.id, performance.now());
      await writer.appendToStream(`lease-${leaseId}`, 'any', [event]);
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
    await waitFor(() => rig.received.size >= leases.length + count, 'every event at the receiver', 60_000);
    const latencies = [...rig.received].flatMap(([key, at]) => {
      const sent = appendedAt.get(key.split(' ')[1] ?? '');
      return sent === undefined ? [] : [at - sent];
    });
    return { events: count, p50_ms: +percentile(latencies, 50).toFixed(1), p95_ms: +percentile(latencies, 95).toFixed(1) };
  } finally {
    await writer.close();
    await rig.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

export interface WebhookFigures {
  readonly one_webhook: { webhooks: number; deliveries: number; deliveries_per_s: number };
  readonly many_webhooks: { webhooks: number; deliveries: number; deliveries_per_s: number };
  readonly end_to_end: { events: number; p50_ms: number; p95_ms: number };
}

export const runWebhookBench = async (): Promise<WebhookFigures> => ({
  one_webhook: await throughput(1, 5_000),
  many_webhooks: await throughput(20, 1_000),
  end_to_end: await endToEnd(500, 20),
});

export const webhookRows = (figures: WebhookFigures): string[] => [
  `| webhook deliveries, 1 webhook, ${figures.one_webhook.deliveries} events already in the log (in order, one at a time) | ${figures.one_webhook.deliveries_per_s} deliveries/s | | |`,
  `| webhook deliveries, ${figures.many_webhooks.webhooks} webhooks, ${figures.many_webhooks.deliveries} deliveries | ${figures.many_webhooks.deliveries_per_s} deliveries/s | | |`,
  `| webhook end to end, append -> receiver, ${figures.end_to_end.events} events 20 ms apart, p50 / p95 | ${figures.end_to_end.p50_ms} ms / ${figures.end_to_end.p95_ms} ms | | |`,
];

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runWebhookBench().then(
    (figures) => {
      console.log(JSON.stringify(figures, null, 2));
      for (const row of webhookRows(figures)) console.log(row);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
