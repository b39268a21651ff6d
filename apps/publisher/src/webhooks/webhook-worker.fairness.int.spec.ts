import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { EventData } from '#event-store/event-store.port.js';
import { type PublicEvent, publicEventOf } from '#application/outbound/public-event.js';
import { sampleOf } from '#application/outbound/testing/published-samples.js';
import { WebhookDeliveries } from '#application/webhooks/webhook-deliveries.store.js';
import { WebhookSecrets } from '#application/webhooks/webhook-secrets.store.js';
import { webhookConfigFromEnv } from '#application/webhooks/webhook.config.js';
import { webhookStream } from '#application/webhooks/webhook.events.js';
import { WebhookChannel } from './webhook.channel.js';
import { httpSender } from './webhook-sender.js';
import { WebhookWorker } from './webhook-worker.js';

/**
 * The sending slots shared fairly across projects (docs/webhooks.md "Isolation"): noisy projects whose
 * receivers answer just under the timeout or never, a victim project with one fast receiver, all real
 * HTTP on loopback through the real channel, queue and worker. The victim's delivery must arrive within
 * one receiver timeout of being queued.
 */
const TIMEOUT_MS = 2_000;
const SLOW_MS = 1_800;

const meta = { correlationId: 'c', causationId: 'c', actor: null, system: 'test' };
const event = (type: string, data: unknown): EventData => ({ id: randomUUID(), type, data, metadata: meta });

const until = async <T>(check: () => T | undefined, what: string, ms = 20_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe('WebhookWorker: a slow or silent receiver holds back its own project only', () => {
  let dir: string;
  let store: SqliteEventStore;
  let deliveries: WebhookDeliveries;
  let secrets: WebhookSecrets;
  let channel: WebhookChannel;
  let server: Server;
  let base: string;
  let position = 0;
  const arrivals: { path: string; at: number }[] = [];

  beforeEach(async () => {
    arrivals.length = 0;
    position = 0;
    dir = mkdtempSync(join(tmpdir(), 'leasehold-webhook-fairness-'));
    store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
    deliveries = WebhookDeliveries.open(join(dir, 'webhooks.sqlite'));
    secrets = WebhookSecrets.open(join(dir, 'webhook-secrets.sqlite'));
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        arrivals.push({ path: request.url ?? '', at: Date.now() });
        if (request.url?.startsWith('/hang') === true) return;
        setTimeout(() => response.writeHead(204).end(), request.url?.startsWith('/slow') === true ? SLOW_MS : 0);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const config = webhookConfigFromEnv({
      LEASEHOLD_WEBHOOKS: 'on',
      LEASEHOLD_WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
      LEASEHOLD_WEBHOOK_TIMEOUT_SECONDS: String(TIMEOUT_MS / 1000),
      // a failed attempt is due again at once: the noisy projects always want a slot
      LEASEHOLD_WEBHOOK_RETRY_SECONDS: '0.05',
      LEASEHOLD_WEBHOOK_MAX_RETRY_SECONDS: '0.05',
    });
    const worker = new WebhookWorker({ deliveries, secrets, config, send: httpSender(config.targets) });
    channel = new WebhookChannel(store, deliveries, worker, '/test');
    channel.start();
  });

  afterEach(async () => {
    server.closeAllConnections();
    await channel.close();
    await new Promise((resolve) => server.close(resolve));
    deliveries.close();
    secrets.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const registerWebhook = async (projectId: string, path: string): Promise<void> => {
    const webhookId = randomUUID();
    secrets.put(webhookId, 'secret-0123456789abcdef', new Date().toISOString());
    const data = { webhookId, projectId, userId: 'u', url: `${base}${path}`, eventTypes: ['*'], registeredAt: new Date().toISOString() };
    await store.appendToStream(webhookStream(webhookId), 'no_stream', [event('Webhook.Registered', data)]);
  };

  /** Creates the project's leases and hands the channel what the log holds since the last call, as the runner would. */
  const createLeases = async (projectId: string, count: number): Promise<void> => {
    for (let n = 0; n < count; n++) {
      const leaseId = randomUUID();
      const created = event('Lease.Created', { ...(sampleOf('Lease.Created', leaseId).data as object), projectId });
      await store.appendToStream(`lease-${leaseId}`, 'no_stream', [created]);
    }
    const events = (await store.readAll({ from: position })).map(publicEventOf).filter((e): e is PublicEvent => e !== null);
    position = (await store.readAll({ from: position })).at(-1)?.position ?? position;
    await channel.publish(events);
  };

  /** How long after it was queued the victim's delivery reached its receiver. */
  const victimDelay = async (): Promise<number> => {
    await registerWebhook('victim', '/fast');
    const queued = Date.now();
    await createLeases('victim', 1);
    const arrival = await until(() => arrivals.find((a) => a.path === '/fast'), "the victim's delivery");
    return arrival.at - queued;
  };

  it("one project's 20 webhooks to a receiver answering just under the timeout keep another's waiting less than one timeout", async () => {
    for (let n = 0; n < 20; n++) await registerWebhook('noisy', `/slow/${n}`);
    await createLeases('noisy', 4);
    await until(() => (arrivals.length >= 4 ? true : undefined), 'the noisy project sending');
    const delay = await victimDelay();
    expect(delay).toBeLessThan(TIMEOUT_MS);
    // the noisy project held its share of the slots, no more
    expect(arrivals.filter((a) => a.path !== '/fast' && a.at <= arrivals[0]!.at + SLOW_MS / 2)).toHaveLength(4);
  }, 30_000);

  it('five noisy projects filling every slot (receivers slow or silent) keep another waiting no more than one timeout', async () => {
    for (let p = 0; p < 5; p++)
      for (let n = 0; n < 5; n++) await registerWebhook(`noisy-${p}`, `/${n % 2 === 0 ? 'slow' : 'hang'}/${p}/${n}`);
    for (let p = 0; p < 5; p++) await createLeases(`noisy-${p}`, 3);
    await until(() => (arrivals.length >= 16 ? true : undefined), 'every slot taken');
    const delay = await victimDelay();
    expect(delay).toBeLessThan(TIMEOUT_MS + 500);
  }, 30_000);
});
