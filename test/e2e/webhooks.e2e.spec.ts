/**
 * Tenant webhooks end to end (docs/webhooks.md): the launcher (or the apps one by one, for the
 * publisher's SIGKILL) on a fresh data folder, and real HTTP receivers started here with node:http on
 * 127.0.0.1 (the allow-list lets loopback through). Waits poll with deadlines; nothing sleeps for state.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { verifySignature } from '#application/webhooks/webhook-signature.js';
import { blazarDate } from '../helpers/http.js';
import { ROOT, type RunningSystem, eventually, freePort, startSystem } from '../helpers/system.js';

const IDENTITIES = {
  'tok-a': { user_id: 'u-a', project_id: 'project-a', roles: ['member'] },
  'tok-b': { user_id: 'u-b', project_id: 'project-b', roles: ['member'] },
  'tok-c': { user_id: 'u-c', project_id: 'project-c', roles: ['member'] },
  'tok-admin': { user_id: 'u-admin', project_id: 'project-admin', roles: ['admin'] },
};
type Token = keyof typeof IDENTITIES;

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly event: {
    readonly id: string;
    readonly type: string;
    readonly subject: string;
    readonly position: number;
    readonly data: Record<string, unknown>;
  };
}

/** A receiver answering each path as its rule says (by how many requests that path got before), recording every request. */
class Receiver {
  readonly received: Received[] = [];
  private readonly server: Server;
  private readonly counts = new Map<string, number>();

  private constructor(
    readonly port: number,
    private readonly answer: (path: string, count: number) => number,
    private readonly delayMs: number,
  ) {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const path = request.url ?? '/';
        const count = this.counts.get(path) ?? 0;
        this.counts.set(path, count + 1);
        this.received.push({ path, headers: request.headers, body, event: JSON.parse(body) as Received['event'] });
        setTimeout(() => response.writeHead(this.answer(path, count)).end(), this.delayMs);
      });
    });
  }

  static async start(answer: (path: string, count: number) => number, delayMs = 0): Promise<Receiver> {
    const receiver = new Receiver(await freePort(), answer, delayMs);
    await new Promise<void>((resolve) => receiver.server.listen(receiver.port, '127.0.0.1', resolve));
    return receiver;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const call = async (base: string, method: string, path: string, token: Token, body?: unknown): Promise<{ status: number; body: any }> => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'X-Auth-Token': token, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text.length > 0 ? JSON.parse(text) : null };
};

const SECRET = 'e2e-webhook-secret-0123456789';

const tokensFile = (dir: string): string => {
  const file = join(dir, 'tokens.json');
  writeFileSync(file, JSON.stringify(IDENTITIES));
  return file;
};

const webhookEnv = async (dir: string): Promise<Record<string, string>> => ({
  LEASEHOLD_AUTH: 'static',
  LEASEHOLD_TOKENS_FILE: tokensFile(dir),
  LEASEHOLD_WEBHOOKS: 'on',
  LEASEHOLD_WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
  LEASEHOLD_WEBHOOK_RETRY_SECONDS: '0.2',
  LEASEHOLD_WEBHOOK_MAX_RETRY_SECONDS: '0.5',
  LEASEHOLD_WEBHOOK_GIVE_UP_SECONDS: '3',
  LEASEHOLD_PUBLISHER_HEALTH_PORT: String(await freePort()),
});

const register = async (base: string, token: Token, url: string, eventTypes: string[]): Promise<string> => {
  const created = await call(base, 'POST', '/v1/webhooks', token, { url, event_types: eventTypes, secret: SECRET });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(JSON.stringify(created.body)).not.toContain(SECRET);
  return created.body.webhook.id;
};

const createLease = async (base: string, token: Token, body: Record<string, unknown>): Promise<string> => {
  const created = await call(base, 'POST', '/v1/leases', token, { reservations: [], ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.lease.id;
};

const deliveriesOf = async (base: string, token: Token, webhookId: string): Promise<any[]> => {
  const reply = await call(base, 'GET', `/v1/webhooks/${webhookId}/deliveries`, token);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.deliveries;
};

const ascending = (values: readonly number[]): boolean => values.every((v, i) => i === 0 || v > (values[i - 1] ?? -Infinity));

const firstArrivals = (received: readonly Received[]): Received[] => {
  const seen = new Set<string>();
  return received.filter((r) => !seen.has(r.event.id) && seen.add(r.event.id));
};

describe('webhooks through the launcher', () => {
  let dir: string;
  let system: RunningSystem;
  let receiver: Receiver;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-webhooks-'));
    receiver = await Receiver.start((path, count) => {
      if (path === '/down') return 500;
      if (path === '/flaky') return count < 2 ? 500 : 200;
      return 200;
    });
    env = await webhookEnv(dir);
    system = await startSystem({ env });
  });

  afterAll(async () => {
    await system?.stop();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "delivers a project's lease events in log order, signed, the before-end reminder at before_end_date; another project's webhook gets none",
    { timeout: 150_000 },
    async () => {
      const all = await register(system.url, 'tok-a', receiver.url('/all'), ['*']);
      await register(system.url, 'tok-a', receiver.url('/reminders'), ['lease.before_end_requested']);
      await register(system.url, 'tok-b', receiver.url('/other-project'), ['*']);
      const beforeEnd = blazarDate(1);
      const leaseId = await createLease(system.url, 'tok-a', {
        name: 'hooked',
        start_date: 'now',
        end_date: blazarDate(3),
        before_end_date: beforeEnd,
      });

      const reminder = await eventually(async () => receiver.at('/reminders')[0], 120_000, 'the before-end reminder');
      expect(reminder.event).toMatchObject({
        type: 'lease.before_end_requested',
        subject: `leases/${leaseId}`,
        data: { lease_id: leaseId },
      });
      // `at` is when the reactor acted: at the lease's before_end_date, not before, and within its lateness
      const lateness = Date.parse(String(reminder.event.data.at)) - Date.parse(`${beforeEnd.replace(' ', 'T')}:00Z`);
      expect(lateness).toBeGreaterThanOrEqual(0);
      expect(lateness).toBeLessThan(30_000);

      const mine = await eventually(
        async () => {
          const got = receiver.at('/all');
          return got.some((r) => r.event.type === 'lease.before_end_requested') ? got : undefined;
        },
        30_000,
        'the lease events up to the reminder',
      );
      const types = mine.map((r) => r.event.type);
      expect(types[0]).toBe('lease.created');
      expect(types).toContain('lease.started');
      expect(ascending(mine.map((r) => r.event.position))).toBe(true);
      const now = Math.floor(Date.now() / 1000);
      for (const r of mine) {
        expect(verifySignature(SECRET, String(r.headers['x-leasehold-signature']), r.body, now, 600)).toBe(true);
        expect(verifySignature('not-the-secret-0000000', String(r.headers['x-leasehold-signature']), r.body, now, 600)).toBe(false);
        expect(r.headers['x-leasehold-event-id']).toBe(r.event.id);
        expect(r.headers['x-leasehold-webhook-id']).toBe(all);
      }
      expect(receiver.at('/reminders').every((r) => r.event.type === 'lease.before_end_requested')).toBe(true);
      expect(receiver.at('/other-project').filter((r) => r.event.subject === `leases/${leaseId}`)).toEqual([]);

      // events after the reminder (its completion...) may still be on their way: every delivery of the lease ends delivered, with a 200
      await eventually(
        async () => {
          const deliveries = (await deliveriesOf(system.url, 'tok-a', all)).filter((d) => d.lease_id === leaseId);
          return deliveries.length >= mine.length &&
            deliveries.every((d) => d.state === 'delivered' && d.attempts.at(-1).status_code === 200)
            ? true
            : undefined;
        },
        30_000,
        "every delivery of the lease's events",
      );
    },
  );

  it('retries a receiver answering 500 until it answers 200; every attempt is visible', { timeout: 60_000 }, async () => {
    const flaky = await register(system.url, 'tok-a', receiver.url('/flaky'), ['lease.created']);
    const leaseId = await createLease(system.url, 'tok-a', { name: 'flaky', start_date: blazarDate(600), end_date: blazarDate(660) });
    const delivery = await eventually(
      async () => (await deliveriesOf(system.url, 'tok-a', flaky)).find((d) => d.lease_id === leaseId && d.state === 'delivered'),
      30_000,
      'the delivery',
    );
    expect(delivery.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 200]);
    expect(receiver.at('/flaky').map((r) => r.event.id)).toEqual([delivery.event_id, delivery.event_id, delivery.event_id]);
  });

  it(
    'gives up on a receiver that always answers 500 after the bounded time, visibly, and holds back no other webhook',
    { timeout: 60_000 },
    async () => {
      const down = await register(system.url, 'tok-a', receiver.url('/down'), ['lease.created']);
      const healthy = await register(system.url, 'tok-a', receiver.url('/healthy'), ['lease.created']);
      const leaseId = await createLease(system.url, 'tok-a', { name: 'down', start_date: blazarDate(700), end_date: blazarDate(760) });
      await eventually(
        async () => receiver.at('/healthy').find((r) => r.event.subject === `leases/${leaseId}`),
        10_000,
        'the healthy webhook',
      );
      const delivery = await eventually(
        async () => (await deliveriesOf(system.url, 'tok-a', down)).find((d) => d.lease_id === leaseId && d.state === 'gave_up'),
        30_000,
        'the give-up',
      );
      expect(delivery.attempts.length).toBeGreaterThanOrEqual(2);
      expect(delivery.attempts.every((a: { status_code: number }) => a.status_code === 500)).toBe(true);
      const span = Date.parse(delivery.attempts.at(-1).at) - Date.parse(delivery.queued_at);
      expect(span).toBeLessThanOrEqual(3_000);
      expect((await deliveriesOf(system.url, 'tok-a', healthy)).find((d) => d.lease_id === leaseId)?.state).toBe('delivered');

      // the publisher's /readyz shows the failing receiver and the give-up, and stays ready: the outage is the tenant's
      const readyz = await fetch(`http://127.0.0.1:${env.LEASEHOLD_PUBLISHER_HEALTH_PORT}/readyz`);
      expect(readyz.status).toBe(200);
      const channel = ((await readyz.json()) as { channels: any[] }).channels.find((c) => c.channel === 'webhooks');
      expect(channel).toMatchObject({ running: true, failing: null, lag: { positions: expect.any(Number), seconds: expect.any(Number) } });
      expect(channel.gave_up).toBeGreaterThanOrEqual(1);
      expect(channel.failing_webhooks).toContainEqual(expect.objectContaining({ webhook_id: down, error: 'HTTP 500' }));
    },
  );

  it('refuses bad registrations with a 400 naming the field, and targets outside the allow-list', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ event_types: ['*'], secret: SECRET }, /Missing parameter url/],
      [{ url: 'ftp://127.0.0.1/x', event_types: ['*'], secret: SECRET }, /Malformed parameter url/],
      [{ url: 'http://user:pw@127.0.0.1/x', event_types: ['*'], secret: SECRET }, /Malformed parameter url/],
      [{ url: 'http://169.254.169.254/latest/meta-data', event_types: ['*'], secret: SECRET }, /not an allowed webhook target/],
      [{ url: 'http://10.0.0.1/x', event_types: ['*'], secret: SECRET }, /not an allowed webhook target/],
      [{ url: receiver.url('/x'), event_types: ['host.registered'], secret: SECRET }, /Malformed parameter event_types/],
      [{ url: receiver.url('/x'), event_types: [], secret: SECRET }, /Malformed parameter event_types/],
      [{ url: receiver.url('/x'), event_types: ['*'] }, /Missing parameter secret/],
      [{ url: receiver.url('/x'), event_types: ['*'], secret: 'short' }, /Malformed parameter secret/],
      [
        { url: receiver.url('/x'), event_types: ['*'], secret: SECRET, project_id: 'project-b' },
        /^Unknown parameter project_id \(webhooks: url, event_types, secret\)$/,
      ],
      [{ url: receiver.url('/x'), event_types: ['*'], secret: SECRET, 'a b': 1 }, /^Unknown parameter \["a b"\]/],
    ];
    const registered = async (): Promise<number> => (await call(system.url, 'GET', '/v1/webhooks', 'tok-admin')).body.webhooks.length;
    const before = await registered();
    for (const [body, message] of cases) {
      const reply = await call(system.url, 'POST', '/v1/webhooks', 'tok-a', body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body).toMatchObject({ error_code: 400, error_name: 400, error_message: expect.stringMatching(message) });
    }
    expect(await registered()).toBe(before);
  });

  it("refuses a project's 26th webhook with a 403 saying why, registering nothing; another project registers still", async () => {
    for (let n = 0; n < 25; n++) await register(system.url, 'tok-c', receiver.url(`/capped/${n}`), ['lease.created']);
    const refused = await call(system.url, 'POST', '/v1/webhooks', 'tok-c', {
      url: receiver.url('/capped/25'),
      event_types: ['lease.created'],
      secret: SECRET,
    });
    expect(refused).toEqual({
      status: 403,
      body: {
        error_code: 403,
        error_name: 403,
        error_message:
          'Project project-c has 25 webhooks, the most it may register (LEASEHOLD_WEBHOOK_MAX_PER_PROJECT); delete one to register another',
      },
    });
    expect((await call(system.url, 'GET', '/v1/webhooks', 'tok-c')).body.webhooks).toHaveLength(25);
    await register(system.url, 'tok-b', receiver.url('/not-capped'), ['lease.created']);
  });

  it("a member neither lists nor reads another project's webhook; an admin sees both", async () => {
    const b = await register(system.url, 'tok-b', receiver.url('/b-only'), ['*']);
    const listed = await call(system.url, 'GET', '/v1/webhooks', 'tok-a');
    expect(listed.body.webhooks.map((w: { id: string }) => w.id)).not.toContain(b);
    expect((await call(system.url, 'GET', `/v1/webhooks/${b}`, 'tok-a')).status).toBe(403);
    expect((await call(system.url, 'GET', `/v1/webhooks/${b}/deliveries`, 'tok-a')).status).toBe(403);
    expect((await call(system.url, 'DELETE', `/v1/webhooks/${b}`, 'tok-a')).status).toBe(403);
    expect((await call(system.url, 'GET', '/v1/webhooks', 'tok-admin')).body.webhooks.map((w: { id: string }) => w.id)).toContain(b);
  });
});

interface Publisher {
  readonly child: ChildProcess;
  readonly output: () => string;
}

const startPublisher = (dataDir: string, env: Readonly<Record<string, string>>): Publisher => {
  let log = '';
  const child = spawn(process.execPath, [join(ROOT, 'dist/apps/publisher/src/main.js')], {
    env: { ...process.env, ...env, LEASEHOLD_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  return { child, output: () => log };
};

const killed = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

/** Renames of these leases appended straight to the log, `chunk` per commit, as another writer would. */
const appendRenames = async (dataDir: string, leaseIds: readonly string[], count: number, chunk = 20): Promise<void> => {
  const store = SqliteEventStore.open({ file: join(dataDir, 'events.sqlite') });
  try {
    for (let done = 0; done < count; done += chunk) {
      const byStream = new Map<
        string,
        { id: string; type: string; data: unknown; metadata: { correlationId: string; causationId: string; actor: null; system: string } }[]
      >();
      for (let n = done; n < Math.min(done + chunk, count); n++) {
        const leaseId = leaseIds[n % leaseIds.length] as string;
        const event = {
          id: randomUUID(),
          type: 'Lease.Renamed',
          data: { leaseId, name: `burst-${n}`, renamedAt: new Date().toISOString() },
          metadata: { correlationId: 'burst', causationId: 'burst', actor: null, system: 'test' },
        };
        byStream.set(`lease-${leaseId}`, [...(byStream.get(`lease-${leaseId}`) ?? []), event]);
      }
      await store.appendMultiple([...byStream].map(([streamId, events]) => ({ streamId, expectedRevision: 'any' as const, events })));
    }
  } finally {
    await store.close();
  }
};

describe('webhooks across a SIGKILL of the publisher', () => {
  it(
    'delivers every event after a restart (duplicates allowed, deduped by event id), each lease in log order',
    { timeout: 120_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'leasehold-webhooks-kill-'));
      const receiver = await Receiver.start(() => 200, 5);
      const env = await webhookEnv(dir);
      const system = await startSystem({ apps: ['api', 'projector', 'reactor'], env });
      let publisher = startPublisher(system.dataDir, env);
      try {
        const webhookId = await register(system.url, 'tok-a', receiver.url('/burst'), ['*']);
        const leaseIds: string[] = [];
        for (let n = 0; n < 5; n++)
          leaseIds.push(
            await createLease(system.url, 'tok-a', {
              name: `burst-${n}`,
              start_date: blazarDate(900 + n * 120),
              end_date: blazarDate(960 + n * 120),
            }),
          );
        const renames = 400;
        await appendRenames(system.dataDir, leaseIds, renames);
        const expected = leaseIds.length + renames;

        await eventually(async () => (receiver.received.length >= 60 ? true : undefined), 30_000, 'part of the burst delivered');
        await killed(publisher.child);
        const beforeRestart = new Set(receiver.received.map((r) => r.event.id)).size;
        expect(beforeRestart, 'the kill came mid-burst').toBeLessThan(expected);
        publisher = startPublisher(system.dataDir, env);

        await eventually(
          async () => (new Set(receiver.received.map((r) => r.event.id)).size >= expected ? true : undefined),
          60_000,
          `all ${expected} events delivered`,
        );
        const first = firstArrivals(receiver.received);
        expect(first.length).toBe(expected);
        for (const leaseId of leaseIds) {
          const positions = first.filter((r) => r.event.subject === `leases/${leaseId}`).map((r) => r.event.position);
          expect(positions.length).toBe(1 + renames / leaseIds.length);
          expect(ascending(positions), `lease ${leaseId} in log order`).toBe(true);
        }
        const deliveries = await eventually(
          async () => {
            const all = await deliveriesOf(system.url, 'tok-a', webhookId);
            return all.length === expected && all.every((d) => d.state === 'delivered') ? all : undefined;
          },
          30_000,
          'every delivery recorded as delivered',
        );
        expect(deliveries.length).toBe(expected);
      } finally {
        await killed(publisher.child);
        await system.stop();
        await receiver.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
