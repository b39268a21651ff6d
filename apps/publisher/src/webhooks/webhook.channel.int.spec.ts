import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { type AddressInfo, type Socket, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { EventData } from '#event-store/event-store.port.js';
import { type PublicEvent, publicEventOf } from '#application/outbound/public-event.js';
import { WebhookDeliveries } from '#application/webhooks/webhook-deliveries.store.js';
import { WebhookSecrets } from '#application/webhooks/webhook-secrets.store.js';
import { parseTargetPolicy } from '#application/webhooks/webhook-targets.js';
import { webhookConfigFromEnv } from '#application/webhooks/webhook.config.js';
import { webhookStream } from '#application/webhooks/webhook.events.js';
import { sampleOf } from '#application/outbound/testing/published-samples.js';
import { WebhookChannel } from './webhook.channel.js';
import { httpSender } from './webhook-sender.js';
import { WebhookWorker } from './webhook-worker.js';

/**
 * The webhook channel and its worker on a real log, queue and secret file, sending to a real HTTP
 * receiver on loopback: who gets which event, the queue's idempotence, and one receiver that hangs
 * holding back no other webhook.
 */
const meta = { correlationId: 'c', causationId: 'c', actor: null, system: 'test' };
const event = (type: string, data: unknown): EventData => ({ id: randomUUID(), type, data, metadata: meta });

const until = async <T>(check: () => T | undefined | Promise<T | undefined>, what: string): Promise<T> => {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('WebhookChannel', () => {
  let dir: string;
  let store: SqliteEventStore;
  let deliveries: WebhookDeliveries;
  let secrets: WebhookSecrets;
  let worker: WebhookWorker;
  let channel: WebhookChannel;
  let server: Server;
  let base: string;
  const received: { path: string; eventId: string }[] = [];

  beforeEach(async () => {
    received.length = 0;
    dir = mkdtempSync(join(tmpdir(), 'leasehold-webhook-channel-'));
    store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
    deliveries = WebhookDeliveries.open(join(dir, 'webhooks.sqlite'));
    secrets = WebhookSecrets.open(join(dir, 'webhook-secrets.sqlite'));
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        // /hang never answers: the worker's timeout ends the attempt
        if (request.url === '/hang') return;
        received.push({ path: request.url ?? '', eventId: String(request.headers['x-leasehold-event-id']) });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const config = webhookConfigFromEnv({
      LEASEHOLD_WEBHOOKS: 'on',
      LEASEHOLD_WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
      LEASEHOLD_WEBHOOK_TIMEOUT_SECONDS: '5',
      LEASEHOLD_WEBHOOK_RETRY_SECONDS: '60',
    });
    worker = new WebhookWorker({ deliveries, secrets, config, send: httpSender(config.targets) });
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

  const registerWebhook = async (projectId: string, path: string, eventTypes: string[]): Promise<string> => {
    const webhookId = randomUUID();
    secrets.put(webhookId, 'secret-0123456789abcdef', new Date().toISOString());
    const data = { webhookId, projectId, userId: 'u', url: `${base}${path}`, eventTypes, registeredAt: new Date().toISOString() };
    await store.appendToStream(webhookStream(webhookId), 'no_stream', [event('Webhook.Registered', data)]);
    return webhookId;
  };

  const createLease = (leaseId: string, projectId: string): EventData =>
    event('Lease.Created', { ...(sampleOf('Lease.Created', leaseId).data as object), projectId });

  /** Everything in the log after `from`, public events only, as the runner hands them over. */
  const publicAfter = async (from: number): Promise<PublicEvent[]> =>
    (await store.readAll({ from })).map(publicEventOf).filter((e): e is PublicEvent => e !== null);

  it("queues a project's lease events for its webhooks registered before them, of the types they asked for", async () => {
    const leaseA = randomUUID();
    await store.appendToStream(`lease-${leaseA}`, 'no_stream', [createLease(leaseA, 'project-a')]);
    const all = await registerWebhook('project-a', '/all', ['*']);
    const renamesOnly = await registerWebhook('project-a', '/renames', ['lease.renamed']);
    const otherProject = await registerWebhook('project-b', '/b', ['*']);
    await store.appendToStream(`lease-${leaseA}`, 0, [
      event('Lease.Renamed', { leaseId: leaseA, name: 'x', renamedAt: '2026-01-01T00:00:00.000Z' }),
    ]);
    await channel.publish(await publicAfter(0));
    // the creation came before every registration: only the rename is for them, and not for project-b's
    const queued = (id: string) => deliveries.list(id, 10).map((d) => d.event_type);
    expect(queued(all)).toEqual(['lease.renamed']);
    expect(queued(renamesOnly)).toEqual(['lease.renamed']);
    expect(queued(otherProject)).toEqual([]);
    await until(() => (received.length === 2 ? true : undefined), 'both deliveries');
    expect(received.map((r) => r.path).sort()).toEqual(['/all', '/renames']);
  });

  it('a batch published again queues nothing twice (the runner repeats a batch after a crash)', async () => {
    const webhookId = await registerWebhook('project-a', '/all', ['*']);
    const leaseId = randomUUID();
    await store.appendToStream(`lease-${leaseId}`, 'no_stream', [createLease(leaseId, 'project-a')]);
    const batch = await publicAfter(0);
    await channel.publish(batch);
    await channel.publish(batch);
    expect(deliveries.list(webhookId, 10)).toHaveLength(1);
  });

  it('after a deletion nothing more is queued for the webhook', async () => {
    const webhookId = await registerWebhook('project-a', '/all', ['*']);
    await store.appendToStream(webhookStream(webhookId), 0, [
      event('Webhook.Deleted', { webhookId, projectId: 'project-a', deletedAt: new Date().toISOString() }),
    ]);
    secrets.remove(webhookId);
    const leaseId = randomUUID();
    await store.appendToStream(`lease-${leaseId}`, 'no_stream', [createLease(leaseId, 'project-a')]);
    await channel.publish(await publicAfter(0));
    expect(deliveries.list(webhookId, 10)).toEqual([]);
  });

  it('a receiver that hangs holds back only its own webhook', async () => {
    const hanging = await registerWebhook('project-a', '/hang', ['*']);
    await registerWebhook('project-a', '/fine', ['*']);
    const leases = [randomUUID(), randomUUID(), randomUUID()];
    for (const leaseId of leases) await store.appendToStream(`lease-${leaseId}`, 'no_stream', [createLease(leaseId, 'project-a')]);
    await channel.publish(await publicAfter(0));
    await until(() => (received.filter((r) => r.path === '/fine').length === 3 ? true : undefined), 'the other webhook served');
    expect(deliveries.list(hanging, 10).map((d) => d.state)).toEqual(['pending', 'pending', 'pending']);
  });
});

describe('httpSender: the address dialled is checked (DNS rebinding)', () => {
  it('refuses a name that resolves to a refused address now, and a literal refused address', async () => {
    const send = httpSender(parseTargetPolicy('public'), () => Promise.resolve(['127.0.0.1']));
    const options = { headers: {}, body: '{}', timeoutMs: 1_000 };
    expect(await send({ ...options, url: 'http://rebound.example.com:61999/' })).toEqual({
      statusCode: null,
      error: expect.stringMatching(/target refused/),
    });
    expect(await send({ ...options, url: 'http://169.254.169.254/latest/meta-data' })).toEqual({
      statusCode: null,
      error: expect.stringMatching(/target refused/),
    });
    expect(await send({ ...options, url: 'http://[::ffff:127.0.0.1]:61999/' })).toEqual({
      statusCode: null,
      error: expect.stringMatching(/target refused/),
    });
  });
});

describe('httpSender: it resolves once, checks every address, and connects to the one it checked', () => {
  /** The same port on 127.0.0.1 (allowed) and 127.0.0.2 (not): which one a request reached is what each records. */
  let allowed: Server;
  let other: Server;
  let port: number;
  const reached: string[] = [];
  const policy = parseTargetPolicy('127.0.0.1');
  const options = { headers: {}, body: '{}', timeoutMs: 1_000 };

  const receiver = (name: string): Server =>
    createServer((request, response) => {
      reached.push(name);
      request.resume();
      request.on('end', () => response.writeHead(204).end());
    });

  beforeEach(async () => {
    reached.length = 0;
    allowed = receiver('127.0.0.1');
    other = receiver('127.0.0.2');
    await new Promise<void>((resolve) => allowed.listen(0, '127.0.0.1', resolve));
    port = (allowed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => other.listen(port, '127.0.0.2', resolve));
  });

  afterEach(async () => {
    for (const server of [allowed, other]) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a name that answers an allowed address, then a refused one, is connected to the allowed one, once resolved per attempt', async () => {
    const answers = [['127.0.0.1'], ['127.0.0.2']];
    let lookups = 0;
    const send = httpSender(policy, () => Promise.resolve(answers[Math.min(lookups++, 1)] ?? []));
    expect(await send({ ...options, url: `http://hooks.example.com:${port}/` })).toEqual({ statusCode: 204, error: null });
    expect(lookups).toBe(1);
    expect(await send({ ...options, url: `http://hooks.example.com:${port}/` })).toEqual({
      statusCode: null,
      error: expect.stringMatching(/target refused/),
    });
    expect(reached).toEqual(['127.0.0.1']);
  });

  it('a name that resolves to an allowed address first and a refused one after it gets no connection at all', async () => {
    const send = httpSender(policy, () => Promise.resolve(['127.0.0.1', '127.0.0.2']));
    expect(await send({ ...options, url: `http://hooks.example.com:${port}/` })).toEqual({
      statusCode: null,
      error: expect.stringMatching(/target refused: hooks.example.com/),
    });
    expect(reached).toEqual([]);
  });

  it('an address literal that embeds a refused IPv4 address gets no connection', async () => {
    const send = httpSender(parseTargetPolicy('public'), () => Promise.reject(new Error('no lookup for a literal')));
    for (const host of ['[::7f00:1]', '[2002:7f00:1::1]', '[64:ff9b:1::7f00:1]', '[2001:0:5db8:d822::80ff:fffe]'])
      expect(await send({ ...options, url: `http://${host}:${port}/` })).toEqual({
        statusCode: null,
        error: expect.stringMatching(/target refused/),
      });
    expect(reached).toEqual([]);
  });
});

describe('httpSender: the timeout bounds the whole attempt', () => {
  it('a receiver that trickles its answer a byte at a time is cut off at the timeout', async () => {
    const sockets = new Set<Socket>();
    const trickler = createTcpServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.write('HTTP/1.1 200 OK\r\n');
      const timer = setInterval(() => socket.write('X-Slow: 1\r\n'), 100);
      socket.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => trickler.listen(0, '127.0.0.1', resolve));
    try {
      const send = httpSender(parseTargetPolicy('127.0.0.1'));
      const started = Date.now();
      const result = await send({
        url: `http://127.0.0.1:${(trickler.address() as AddressInfo).port}/`,
        headers: {},
        body: '{}',
        timeoutMs: 500,
      });
      expect(result).toEqual({ statusCode: null, error: 'no answer within 500 ms' });
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => trickler.close(resolve));
    }
  }, 10_000);
});
