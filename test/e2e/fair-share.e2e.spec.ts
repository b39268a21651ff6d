/**
 * Fair-share shares and factors through HTTP against the running system (api + projector + reactor, static tokens, a
 * one-hour half-life): a lease the reactor really started and the API deleted shows in its project's decayed usage (the
 * test integrates the decay itself from the lease's recorded start and end and the answer's `computed_at`); shares set,
 * read and reset by an admin move every project's normalised share and factor as Slurm's formula says; a member reads
 * its own project only and sets nothing; bad input is a 400 in Blazar's body and writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerCount, pinnedHost } from '../helpers/api-fixtures.js';
import { api, blazarDate } from '../helpers/http.js';
import { blazarError, describeBody } from '../helpers/lease-client.js';
import { type StaticAuth, staticAuth } from '../helpers/static-auth.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const IDENTITIES = {
  admin: { token: 'tok-admin', user_id: 'u-admin', project_id: 'fs-admin', roles: ['admin'] },
  memberA: { token: 'tok-member-a', user_id: 'u-a', project_id: 'project-a', roles: ['member', 'reader'] },
} as const;
type Who = keyof typeof IDENTITIES;
const auth = (who: Who): Record<string, string> => ({ 'X-Auth-Token': IDENTITIES[who].token });

const HOUR_MS = 3_600_000;
const HALF_LIFE_MS = HOUR_MS;
const VCPUS = 8;

/** vCPUs held over [start, end), each instant weighted 2^(-(now - t)/half-life): the integral, in vCPU-hours. */
const decayed = (startMs: number, endMs: number, nowMs: number): number => {
  const weight = (t: number): number => Math.pow(2, -(nowMs - t) / HALF_LIFE_MS);
  return (VCPUS * (HALF_LIFE_MS / Math.LN2) * (weight(endMs) - weight(startMs))) / HOUR_MS;
};

const standing = (body: any, projectId: string): any => (body.fair_share.projects as any[]).find((entry) => entry.project_id === projectId);

describe('fair share through the API (api + projector + reactor, static tokens)', () => {
  let tokens: StaticAuth;
  let system: RunningSystem;
  let client: ReturnType<typeof api>;
  let ran: { startMs: number; endMs: number };

  beforeAll(async () => {
    tokens = staticAuth(IDENTITIES);
    system = await startSystem({ env: { ...tokens.env, LEASEHOLD_FAIR_SHARE_HALF_LIFE: '1h' } });
    client = api(system.url);
    const host = await client.post('/v1/os-hosts', { name: 'fs-host', vcpus: VCPUS, memory_mb: 8192, local_gb: 100 }, auth('admin'));
    expect(host.status, describeBody(host)).toBe(201);
    const lease = { name: 'fs-lease', start_date: 'now', end_date: blazarDate(120), reservations: [pinnedHost('fs-host')] };
    const created = await client.post('/v1/leases', lease, auth('memberA'));
    expect(created.status, describeBody(created)).toBe(201);
    const leaseId = created.body.lease.id as string;
    await eventually(
      async () => ((await client.get(`/v1/leases/${leaseId}`, auth('memberA'))).body.lease.status === 'ACTIVE' ? true : undefined),
      30_000,
      'the lease to start',
    );
    expect((await client.delete(`/v1/leases/${leaseId}`, auth('memberA'))).status).toBe(204);
    const history = (await client.get(`/v1/leases/${leaseId}/history`, auth('admin'))).body.history as { type: string; data: any }[];
    const at = (type: string): number => Date.parse(history.find((entry) => entry.type === type)?.data.at as string);
    ran = { startMs: at('lease.started'), endMs: at('lease.end_requested') };
    expect(ran.endMs).toBeGreaterThan(ran.startMs);
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    tokens?.remove();
  });

  it('a lease that ran shows in its project decayed usage; the only user sits at 0.5', async () => {
    const listed = await client.get('/v1/fair-share', auth('admin'));
    expect(listed.status, describeBody(listed)).toBe(200);
    expect(listed.body.fair_share).toMatchObject({ half_life_hours: 1, usage_unit: 'vcpu_hours' });
    const a = standing(listed.body, 'project-a');
    const expected = decayed(ran.startMs, ran.endMs, Date.parse(listed.body.fair_share.computed_at as string));
    expect(a.decayed_usage).toBeGreaterThan(0);
    expect(a.decayed_usage / expected).toBeCloseTo(1, 9);
    expect(a).toMatchObject({ shares: 1, normalised_share: 1, normalised_usage: 1, factor: 0.5 });
  });

  it('shares set by an admin move every normalised share and factor; a reset puts them back', async () => {
    const set = await client.put('/v1/fair-share/project-b', { shares: 3 }, auth('admin'));
    expect(set.status, describeBody(set)).toBe(200);
    expect(set.body.fair_share).toMatchObject({ project_id: 'project-b', shares: 3, normalised_share: 0.75, decayed_usage: 0, factor: 1 });
    const listed = (await client.get('/v1/fair-share', auth('admin'))).body;
    expect((listed.fair_share.projects as any[]).map((entry) => entry.project_id)).toEqual(['project-a', 'project-b']);
    // U = 1 over S = 1/4: 2^-4
    expect(standing(listed, 'project-a')).toMatchObject({ shares: 1, normalised_share: 0.25, normalised_usage: 1, factor: 0.0625 });
    const again = await client.put('/v1/fair-share/project-a', { shares: 1.5 }, auth('admin'));
    expect(again.body.fair_share).toMatchObject({ shares: 1.5, normalised_share: 1.5 / 4.5, factor: Math.pow(2, -3) });

    expect((await client.delete('/v1/fair-share/project-b', auth('admin'))).status).toBe(204);
    const reset = await client.get('/v1/fair-share/project-b', auth('admin'));
    expect(reset.body.fair_share).toMatchObject({ project_id: 'project-b', shares: 1, normalised_share: 1 / 2.5, factor: 1 });
    const twice = await client.delete('/v1/fair-share/project-b', auth('admin'));
    expect(twice.status).toBe(404);
    expect(twice.body.error_message).toBe('Project project-b has no shares set: it already holds the default');
    const types = ((await client.get('/v1/events?limit=1000', auth('admin'))).body.events as { type: string }[])
      .map((event) => event.type)
      .filter((type) => type.startsWith('fair_share.'));
    expect(types).toEqual(['fair_share.share_set', 'fair_share.share_set', 'fair_share.share_reset']);
  });

  it('a member reads its own project only, and sets nothing', async () => {
    const own = await client.get('/v1/fair-share/project-a', auth('memberA'));
    expect(own.status, describeBody(own)).toBe(200);
    expect(own.body.fair_share.project_id).toBe('project-a');
    const before = ledgerCount(system.dataDir);
    for (const response of [
      await client.get('/v1/fair-share/project-b', auth('memberA')),
      await client.get('/v1/fair-share', auth('memberA')),
      await client.put('/v1/fair-share/project-a', { shares: 100 }, auth('memberA')),
      await client.delete('/v1/fair-share/project-a', auth('memberA')),
    ]) {
      expect(response.status, describeBody(response)).toBe(403);
      expect(response.body.error_code).toBe(403);
    }
    expect(ledgerCount(system.dataDir)).toBe(before);
  });

  it.each([
    [{ shares: 0 }, 'shares must be a number from 0.001 to 1000000'],
    [{ shares: -2 }, 'shares must be a number from 0.001 to 1000000'],
    [{ shares: 1e7 }, 'shares must be a number from 0.001 to 1000000'],
    [{ shares: '3' }, 'Malformed parameter shares (must be a number)'],
    [{}, 'Missing parameter shares'],
  ])('PUT %j is a 400 in Blazar body and writes nothing', async (body, message) => {
    const before = ledgerCount(system.dataDir);
    const response = await client.put('/v1/fair-share/project-a', body, auth('admin'));
    expect(response.status, describeBody(response)).toBe(400);
    expect(response.body).toEqual(blazarError(400, message));
    expect(ledgerCount(system.dataDir)).toBe(before);
  });

  it('an unknown field, a body not an object and a malformed project id are 400s too', async () => {
    const before = ledgerCount(system.dataDir);
    for (const [path, body] of [
      ['/v1/fair-share/project-a', { shares: 2, weight: 1 }],
      ['/v1/fair-share/project-a', [2]],
      ['/v1/fair-share/not%20a%20project', { shares: 2 }],
    ] as const) {
      const response = await client.put(path, body, auth('admin'));
      expect(response.status, describeBody(response)).toBe(400);
      expect(response.body.error_code).toBe(400);
    }
    expect(ledgerCount(system.dataDir)).toBe(before);
  });
});
