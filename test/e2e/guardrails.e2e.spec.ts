/**
 * The freepool's guardrails and the tenant's end of lease, through HTTP against the built system
 * (standalone FAKE cloud, static tokens): the general-pool floor refuses an enrollment with 409 and
 * writes nothing; the headroom rule refuses a member's lease with 409 naming the rule, lets an admin's
 * pass and records the override; before_end `notify` reaches the event feed when the before-end phase
 * runs; what an ended lease left in the cloud becomes an event and a metric of the reactor.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StandaloneCloud } from '#plugins/standalone/standalone-cloud.js';
import { ledgerCount, pinnedHost } from '../helpers/api-fixtures.js';
import { api, blazarDate, hostReservation } from '../helpers/http.js';
import { blazarError, describeBody } from '../helpers/lease-client.js';
import { type StaticAuth, staticAuth } from '../helpers/static-auth.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const IDENTITIES = {
  admin: { token: 'tok-admin', user_id: 'u-admin', project_id: 'project-admin', roles: ['admin'] },
  member: { token: 'tok-member', user_id: 'u-member', project_id: 'project-a', roles: ['member', 'reader'] },
} as const;
type Who = keyof typeof IDENTITIES;

interface Entry {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

let system: RunningSystem;
let tokens: StaticAuth;
const client = () => api(system.url);
const auth = (who: Who): Record<string, string> => ({ 'X-Auth-Token': IDENTITIES[who].token });
const HOSTS = ['g-1', 'g-2', 'g-3', 'g-4'];

/** Feed entries of `type` about `leaseId`, as the lease's project sees them. */
const feedEntries = async (who: Who, type: string, leaseId: string): Promise<Entry[]> => {
  const response = await client().get(`/v1/events?types=${type}&limit=100`, auth(who));
  expect(response.status, describeBody(response)).toBe(200);
  return (response.body.events as Entry[]).filter((e) => e.data['lease_id'] === leaseId);
};
const waitForEntry = (who: Who, type: string, leaseId: string): Promise<Entry> =>
  eventually(async () => (await feedEntries(who, type, leaseId))[0], 30_000, `${type} of lease ${leaseId}`);

const reactorMetric = async (name: string, kind: string): Promise<number | undefined> => {
  const text = await (await fetch(`${system.reactorHealthUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{kind="${kind}"}`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
};

beforeAll(async () => {
  tokens = staticAuth(IDENTITIES);
  system = await startSystem({
    env: {
      ...tokens.env,
      // the simulated zone nova has 6 compute hosts; 2 stay in the general pool, 1 stays free in the freepool
      LEASEHOLD_STANDALONE_ZONE_HOSTS: 'nova:6',
      LEASEHOLD_GENERAL_POOL_FLOOR: 'nova:2',
      LEASEHOLD_FREEPOOL_HEADROOM: 'nova:1',
      LEASEHOLD_RECONCILE_SECONDS: '1',
    },
  });
  await system.healthy();
  for (const name of HOSTS) {
    const host = await client().post(
      '/v1/os-hosts',
      { name, vcpus: 4, memory_mb: 8192, local_gb: 100, availability_zone: 'nova' },
      auth('admin'),
    );
    expect(host.status, describeBody(host)).toBe(201);
  }
}, 60_000);

afterEach((context) => {
  if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-6000)}`);
});

afterAll(async () => {
  await system?.stop();
  tokens?.remove();
});

describe('general-pool floor', () => {
  it('refuses a fifth host of zone nova (6 compute hosts, floor 2) with 409 naming the floor, the zone and the counts; nothing is written', async () => {
    const before = ledgerCount(system.dataDir);
    const refused = await client().post(
      '/v1/os-hosts',
      { name: 'g-5', vcpus: 4, memory_mb: 8192, local_gb: 100, availability_zone: 'nova' },
      auth('admin'),
    );
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual(
      blazarError(
        409,
        "Host g-5 refused by the general-pool floor (LEASEHOLD_GENERAL_POOL_FLOOR 2 in zone nova): enrolling it would leave 1 host of the zone's 6 compute hosts outside the freepool (4 already in it), the floor keeps 2 hosts",
      ),
    );
    expect(ledgerCount(system.dataDir)).toBe(before);
    const hosts = await client().get('/v1/os-hosts', auth('admin'));
    expect((hosts.body.hosts as { hypervisor_hostname: string }[]).map((h) => h.hypervisor_hostname).sort()).toEqual(HOSTS);
  });
});

describe('freepool headroom', () => {
  const window = { start_date: blazarDate(60 * 24 * 5), end_date: blazarDate(60 * 24 * 5 + 60) };

  it("refuses a member's lease that would leave no free host in nova with 409 naming the rule; nothing is written", async () => {
    const before = ledgerCount(system.dataDir);
    const refused = await client().post('/v1/leases', { name: 'greedy', ...window, reservations: [hostReservation(4)] }, auth('member'));
    expect(refused.status).toBe(409);
    // a counter-offer as for any refusal for capacity: none here, as four hosts always leave none free
    expect(refused.body).toEqual({
      ...blazarError(
        409,
        `Lease refused by the freepool headroom rule (LEASEHOLD_FREEPOOL_HEADROOM): it would leave 0 free hosts in zone nova (at ${window.start_date.replace(' ', 'T')}:00.000Z), the rule keeps 1`,
      ),
      alternatives: [],
    });
    expect(ledgerCount(system.dataDir)).toBe(before);
  });

  it("admits an admin's lease breaking the rule and records the override in the lease's history", async () => {
    const created = await client().post('/v1/leases', { name: 'operator', ...window, reservations: [hostReservation(4)] }, auth('admin'));
    expect(created.status, describeBody(created)).toBe(201);
    const leaseId = created.body.lease.id as string;
    const history = await eventually(
      async () => {
        const response = await client().get(`/v1/leases/${leaseId}/history`, auth('admin'));
        return response.status === 200 ? (response.body.history as Entry[]) : undefined;
      },
      10_000,
      'the history',
    );
    expect(history.find((e) => e.type === 'lease.guardrail_overridden')?.data).toEqual({
      lease_id: leaseId,
      rule: 'freepool_headroom',
      zone: 'nova',
      free_hosts: 0,
      keep: 1,
      instant: `${window.start_date.replace(' ', 'T')}:00.000Z`,
      at: expect.any(String) as unknown,
    });
    expect((await client().delete(`/v1/leases/${leaseId}`, auth('admin'))).status).toBe(204);
  });
});

describe('the tenant-facing end of a lease', () => {
  it('refuses an unknown before_end with 400', async () => {
    const refused = await client().post(
      '/v1/leases',
      {
        name: 'bad',
        start_date: blazarDate(60 * 24 * 6),
        end_date: blazarDate(60 * 24 * 6 + 60),
        reservations: [pinnedHost('g-2', 1, 1, { before_end: 'remind' })],
      },
      auth('member'),
    );
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(blazarError(400, 'Malformed parameter before_end'));
  });

  it('sends the notify reminder to the feed when the before-end phase runs; the lease shows when; leftovers after its end are an event and a metric', async () => {
    const created = await client().post(
      '/v1/leases',
      { name: 'remind-me', start_date: 'now', end_date: blazarDate(5), reservations: [pinnedHost('g-1', 1, 1, { before_end: 'notify' })] },
      auth('member'),
    );
    expect(created.status, describeBody(created)).toBe(201);
    const lease = created.body.lease as {
      id: string;
      start_date: string;
      end_date: string;
      reservations: { id: string; before_end: string }[];
      events: { event_type: string; time: string }[];
    };
    expect(lease.reservations[0]?.before_end).toBe('notify');
    // shorter than minutes_before_end_lease: the reminder goes out at the start, and the lease says so
    expect(lease.events.find((e) => e.event_type === 'before_end_lease')?.time).toBe(lease.start_date);

    const reminder = await waitForEntry('member', 'lease.ending_soon_notified', lease.id);
    expect(reminder.data).toMatchObject({ lease_id: lease.id, project_id: 'project-a', reservation_ids: [lease.reservations[0]?.id] });
    expect(`${String(reminder.data['end_date']).slice(0, 16).replace('T', ' ')}`).toBe(lease.end_date.slice(0, 16).replace('T', ' '));

    // ended by its deletion: the end effects take the aggregate away
    await eventually(
      async () => ((await client().get(`/v1/leases/${lease.id}`, auth('member'))).body.lease?.status === 'ACTIVE' ? true : undefined),
      15_000,
      'ACTIVE',
    );
    expect((await client().delete(`/v1/leases/${lease.id}`, auth('member'))).status).toBe(204);
    await waitForEntry('admin', 'lease.ended', lease.id);

    const reservationId = lease.reservations[0]?.id ?? '';
    const cloud = StandaloneCloud.open({ file: join(system.dataDir, 'standalone-cloud.sqlite') });
    try {
      expect(cloud.nova.getAggregate(reservationId)).toBeNull();
      // behind the ledger's back, the reservation's aggregate comes back
      cloud.nova.ensureAggregate(reservationId, { availabilityZone: null, metadata: {} });
      const found = await waitForEntry('admin', 'lease.leftovers_found', lease.id);
      expect(found.data['leftovers']).toEqual([{ reservation_id: reservationId, kind: 'aggregate', id: reservationId }]);
      await eventually(
        async () => ((await reactorMetric('leasehold_reclamation_leftovers', 'aggregate')) === 1 ? true : undefined),
        15_000,
        'the leftover gauge at 1',
      );
      expect(await reactorMetric('leasehold_reclamation_leftover_findings_total', 'aggregate')).toBeGreaterThanOrEqual(1);

      cloud.nova.deleteAggregate(reservationId);
      await waitForEntry('admin', 'lease.leftovers_cleared', lease.id);
      await eventually(
        async () => ((await reactorMetric('leasehold_reclamation_leftovers', 'aggregate')) === 0 ? true : undefined),
        15_000,
        'the leftover gauge at 0',
      );
      // one finding, not one per pass
      expect(await feedEntries('admin', 'lease.leftovers_found', lease.id)).toHaveLength(1);
    } finally {
      cloud.close();
    }
  });
});
