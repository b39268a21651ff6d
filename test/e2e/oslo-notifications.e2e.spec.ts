/**
 * The oslo.messaging notifications channel (docs/notifications.md) heard by a real oslo.messaging
 * notification listener (Debian's python3-oslo.messaging, test/helpers/oslo-notification-listener.py)
 * on the RabbitMQ .ci/run starts (scripts/services/rabbitmq-up.sh, LEASEHOLD_TEST_AMQP_URL). The outage
 * case stops and restarts a broker of its own. Skipped when LEASEHOLD_TEST_AMQP_URL is unset.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { api, blazarDate, hostReservation } from '../helpers/http.js';
import { type HeardNotification, TEST_AMQP_URL, startOsloListener } from '../helpers/oslo-listener.js';
import { ROOT, eventually, freePort, startSystem } from '../helpers/system.js';

const run = promisify(execFile);

type Lease = Readonly<Record<string, unknown>> & {
  readonly id: string;
  readonly status: string;
  readonly events: readonly { event_type: string; status: string }[];
};

/** What upstream's payload must hold for `lease` as the API showed it: its fields, `id` as `lease_id`. */
const upstreamPayloadOf = (lease: Lease): Record<string, unknown> => {
  const { id, reservations, ...rest } = lease as Lease & { reservations: readonly Record<string, unknown>[] };
  const fields = [
    'user_id',
    'project_id',
    'trust_id',
    'start_date',
    'end_date',
    'status',
    'events',
    'name',
    'created_at',
    'updated_at',
    'degraded',
  ] as const;
  return {
    lease_id: id,
    ...Object.fromEntries(fields.map((field) => [field, rest[field]])),
    // end_action is Leasehold's addition to the API's reservation, not in upstream's dict
    reservations: reservations.map(({ end_action: _endAction, ...reservation }) => reservation),
  };
};

const eventStatus = (lease: { readonly events: readonly { event_type: string; status: string }[] }, type: string): string | undefined =>
  lease.events.find((event) => event.event_type === type)?.status;

const checkpointOf = (dataDir: string): number => {
  if (!existsSync(join(dataDir, 'publisher.sqlite'))) return 0;
  const db = new Database(join(dataDir, 'publisher.sqlite'), { readonly: true });
  try {
    return (
      (
        db.prepare("SELECT position FROM channel_checkpoints WHERE channel = 'oslo-notifications'").get() as
          { position: number } | undefined
      )?.position ?? 0
    );
  } finally {
    db.close();
  }
};

const headOf = (dataDir: string): number => {
  const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true });
  try {
    return (db.prepare('SELECT MAX(position) AS head FROM events').get() as { head: number | null }).head ?? 0;
  } finally {
    db.close();
  }
};

interface ChannelDetail {
  readonly channel: string;
  readonly position: number;
  readonly lag: { readonly positions: number; readonly seconds: number };
  readonly failing: { readonly error: string; readonly attempts: number } | null;
  readonly lastFailure: { readonly error: string } | null;
}

const readyz = async (url: string): Promise<{ status: number; channel: ChannelDetail } | undefined> => {
  try {
    const response = await fetch(`${url}/readyz`);
    const body = (await response.json()) as { channels?: ChannelDetail[] };
    const channel = body.channels?.find((c) => c.channel === 'oslo-notifications');
    return channel === undefined ? undefined : { status: response.status, channel };
  } catch {
    return undefined;
  }
};

const forLease = (heard: readonly HeardNotification[], leaseId: string): HeardNotification[] =>
  heard.filter((n) => n.payload.lease_id === leaseId);

describe('publisher start with the notifications channel misconfigured', () => {
  it('exits 1 naming the variable, the password masked', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-oslo-config-'));
    try {
      const child = spawn(process.execPath, [join(ROOT, 'dist/apps/publisher/src/main.js')], {
        env: {
          ...process.env,
          LEASEHOLD_KAFKA_BROKERS: '',
          LEASEHOLD_DATA_DIR: dataDir,
          LEASEHOLD_PUBLISHER_HEALTH_PORT: 'off',
          LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL: 'kafka://admin:s3cret@broker:9092/',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(1);
      expect(output).toContain('LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL must be rabbit://');
      expect(output).not.toContain('s3cret');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(TEST_AMQP_URL === '')('oslo.messaging notifications channel (publisher)', () => {
  it('an oslo.messaging listener hears all seven notification types of a lease, as upstream sends them, with the lease the API showed', async () => {
    const topic = `notifications${Date.now()}`;
    const listener = await startOsloListener(TEST_AMQP_URL, 'openstack', topic);
    const system = await startSystem({
      env: {
        LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL: TEST_AMQP_URL.replace(/^amqp:/, 'rabbit:'),
        LEASEHOLD_NOTIFICATIONS_TOPIC: topic,
        LEASEHOLD_PUBLISHER_HEALTH_PORT: String(await freePort()),
      },
    });
    const client = api(system.url);
    const show = async (id: string): Promise<Lease> => (await client.get(`/v1/leases/${id}`)).body.lease as Lease;
    const waitFor = (id: string, what: string, accept: (lease: Lease) => boolean): Promise<Lease> =>
      eventually(
        async () => {
          const lease = await show(id);
          return accept(lease) ? lease : undefined;
        },
        30_000,
        what,
      );
    const heardOnce = async (id: string, eventType: string): Promise<HeardNotification> => {
      await listener.until((heard) => forLease(heard, id).some((n) => n.event_type === eventType), 30_000, eventType);
      const matching = forLease(listener.heard, id).filter((n) => n.event_type === eventType);
      return matching[matching.length - 1] as HeardNotification;
    };
    try {
      expect((await client.post('/v1/os-hosts', { name: 'oslo-host-1' })).status).toBe(201);
      // starts at once; shorter than an hour, so its before-end is clamped to the start and runs right after it
      const created = await client.post('/v1/leases', {
        name: 'oslo-lease',
        start_date: 'now',
        end_date: blazarDate(5),
        reservations: [hostReservation(1)],
        events: [],
      });
      expect(created.status).toBe(201);
      const lease = created.body.lease as Lease;
      expect((await heardOnce(lease.id, 'lease.create')).payload).toEqual(upstreamPayloadOf(lease));

      const active = await waitFor(lease.id, 'ACTIVE', (l) => l.status === 'ACTIVE');
      const started = await heardOnce(lease.id, 'lease.event.start_lease');
      expect(started.payload).toMatchObject({
        lease_id: lease.id,
        status: 'ACTIVE',
        start_date: active.start_date,
        end_date: active.end_date,
      });
      expect(eventStatus(started.payload as unknown as Lease, 'start_lease')).toBe('DONE');
      expect((started.payload.reservations as { status: string }[]).map((r) => r.status)).toEqual(['active']);

      const afterBeforeEnd = await waitFor(lease.id, 'before_end_lease DONE', (l) => eventStatus(l, 'before_end_lease') === 'DONE');
      expect((await heardOnce(lease.id, 'lease.event.before_end_lease')).payload).toEqual(upstreamPayloadOf(afterBeforeEnd));

      // a later end re-arms the before-end that ran: upstream's lease.update, then before_end_lease.stop
      const extended = await client.put(`/v1/leases/${lease.id}`, { end_date: blazarDate(20) });
      expect(extended.status).toBe(200);
      expect(eventStatus(extended.body.lease as Lease, 'before_end_lease')).toBe('UNDONE');
      const update = await heardOnce(lease.id, 'lease.update');
      expect(update.payload).toEqual(upstreamPayloadOf(extended.body.lease as Lease));
      const stop = await heardOnce(lease.id, 'lease.event.before_end_lease.stop');
      expect(stop.payload).toEqual(update.payload);
      expect(
        forLease(listener.heard, lease.id)
          .map((n) => n.event_type)
          .slice(-2),
      ).toEqual(['lease.update', 'lease.event.before_end_lease.stop']);

      // a rename alone: upstream's update_lease returns before it notifies
      expect((await client.put(`/v1/leases/${lease.id}`, { name: 'oslo-lease-renamed' })).status).toBe(200);
      const ending = await client.put(`/v1/leases/${lease.id}`, { end_date: 'now' });
      expect(ending.status).toBe(200);
      const terminated = await waitFor(lease.id, 'TERMINATED', (l) => l.status === 'TERMINATED');
      expect((await heardOnce(lease.id, 'lease.event.end_lease')).payload).toEqual(upstreamPayloadOf(terminated));

      const beforeDelete = Date.now();
      expect((await client.delete(`/v1/leases/${lease.id}`)).status).toBe(204);
      // upstream reads the lease once its decorator set DELETING, which stamps updated_at
      const deleted = await heardOnce(lease.id, 'lease.delete');
      expect(deleted.payload).toEqual({ ...upstreamPayloadOf(terminated), status: 'DELETING', updated_at: expect.any(String) });
      const deletedAt = Date.parse(`${String(deleted.payload.updated_at).replace(' ', 'T')}Z`);
      expect(deletedAt).toBeGreaterThanOrEqual(Math.floor(beforeDelete / 1000) * 1000);

      const heard = forLease(listener.heard, lease.id);
      const types = heard.map((n) => n.event_type);
      expect(types.slice(0, 6)).toEqual([
        'lease.create',
        'lease.event.start_lease',
        'lease.event.before_end_lease',
        'lease.update',
        'lease.event.before_end_lease.stop',
        // the end_date "now" update
        'lease.update',
      ]);
      // it also moved the re-armed before-end (its offset from the end kept) into the past: the reactor runs
      // that and the end (in which order is the reactor's business), then the delete comes last
      expect([...types.slice(6, -1)].sort()).toEqual(['lease.event.before_end_lease', 'lease.event.end_lease']);
      expect(types.at(-1)).toBe('lease.delete');
      for (const notification of heard) {
        expect(notification).toMatchObject({ publisher_id: 'blazar.lease', priority: 'INFO' });
        expect(notification.metadata.timestamp).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{6})?$/);
        expect(notification.metadata.message_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      }
      expect(new Set(heard.map((n) => n.metadata.message_id)).size).toBe(heard.length);
      expect(heard[0]?.ctxt).toMatchObject({ user_id: lease.user_id, project_id: lease.project_id });
      expect(heard.find((n) => n.event_type === 'lease.update')?.payload.name).toBe('oslo-lease');
      expect(heard.find((n) => n.event_type === 'lease.event.end_lease')?.payload.name).toBe('oslo-lease-renamed');
    } finally {
      await listener.stop();
      await system.stop();
    }
  }, 180_000);

  it('a broker outage holds the checkpoint and shows in /readyz (failing, lag growing); the held notifications arrive after it', async () => {
    const brokerEnv = { ...process.env, RMQ_ROOT: '/tmp/leasehold-services/rabbitmq-outage', AMQP_PORT: '62676' };
    const brokerUp = async (): Promise<string> =>
      (await run('bash', [join(ROOT, 'scripts/services/rabbitmq-up.sh')], { env: brokerEnv })).stdout.trim().split('\n').at(-1) ?? '';
    const brokerDown = () => run('bash', [join(ROOT, 'scripts/services/rabbitmq-down.sh')], { env: brokerEnv });
    const url = await brokerUp();
    const healthPort = await freePort();
    const system = await startSystem({
      env: {
        LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL: url,
        LEASEHOLD_PUBLISHER_HEALTH_PORT: String(healthPort),
        LEASEHOLD_PUBLISHER_MAX_RETRY_SECONDS: '1',
      },
    });
    const health = `http://127.0.0.1:${healthPort}`;
    const client = api(system.url);
    const createLease = async (name: string): Promise<string> => {
      const response = await client.post('/v1/leases', {
        name,
        start_date: blazarDate(60),
        end_date: blazarDate(120),
        reservations: [],
        events: [],
      });
      expect(response.status).toBe(201);
      return response.body.lease.id as string;
    };
    let listener: Awaited<ReturnType<typeof startOsloListener>> | null = null;
    try {
      const first = await createLease('before-outage');
      const level = await eventually(
        async () => {
          const r = await readyz(health);
          return r?.status === 200 && r.channel.lag.positions === 0 && r.channel.position >= headOf(system.dataDir) ? r : undefined;
        },
        30_000,
        'the channel level with the log',
      );
      expect(level.channel.failing).toBeNull();

      await brokerDown();
      const during = [await createLease('during-outage-1'), await createLease('during-outage-2')];
      const headDuring = headOf(system.dataDir);
      const failing = await eventually(
        async () => {
          const r = await readyz(health);
          return r?.status === 503 && r.channel.failing !== null && r.channel.failing.attempts >= 2 ? r : undefined;
        },
        30_000,
        'the channel failing in /readyz',
      );
      expect(failing.channel.lag.positions).toBeGreaterThan(0);
      expect(failing.channel.lag.seconds).toBeGreaterThan(0);
      expect(checkpointOf(system.dataDir)).toBeLessThan(headDuring);
      expect(checkpointOf(system.dataDir)).toBe(failing.channel.position);

      expect(await brokerUp()).toBe(url);
      listener = await startOsloListener(url, 'openstack', 'notifications');
      const recovered = await eventually(
        async () => {
          const r = await readyz(health);
          return r?.status === 200 && r.channel.position >= headDuring ? r : undefined;
        },
        60_000,
        'the channel recovered',
      );
      expect(recovered.channel.failing).toBeNull();
      expect(recovered.channel.lastFailure?.error).toEqual(expect.any(String));
      expect(checkpointOf(system.dataDir)).toBeGreaterThanOrEqual(headDuring);
      // the broker lost its queue with its data: what was confirmed before the outage is gone with it,
      // what the outage held back arrives
      await listener.until(
        (heard) => during.every((id) => forLease(heard, id).some((n) => n.event_type === 'lease.create')),
        30_000,
        'the held lease.create notifications',
      );
      expect(forLease(listener.heard, first)).toEqual([]);
    } finally {
      await listener?.stop();
      await system.stop();
      await brokerDown();
    }
  }, 180_000);
});
