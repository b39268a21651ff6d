/**
 * Lease lifecycle through HTTP only: the reactor starts, runs before-end and ends leases, the
 * projector shows it, and the API frees hosts on early end and on delete. Upstream references are
 * the captures #42-#46 in /work/shared/reference/blazar-captures/transcript.md.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UUID, addMinutes, pinnedHost, tDate, tDateMs } from '../helpers/api-fixtures.js';
import { type JsonResponse, api, blazarDate } from '../helpers/http.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

interface EventView {
  readonly event_type: string;
  readonly status: string;
  readonly time: string;
}

interface LeaseView {
  readonly id: string;
  readonly status: string;
  readonly start_date: string;
  readonly end_date: string;
  readonly reservations: { readonly id: string; readonly status: string }[];
  readonly events: EventView[];
}

const describeBody = (response: JsonResponse): string => `${response.status} ${JSON.stringify(response.body)}`;
const eventOf = (lease: LeaseView, type: string): EventView | undefined => lease.events.find((e) => e.event_type === type);
const minuteOf = (ms: number): number => Math.floor(ms / 60_000);

describe('lease lifecycle through HTTP (api + projector + reactor)', () => {
  let system: RunningSystem;
  let client: ReturnType<typeof api>;
  const hostIds: Record<string, string> = {};

  beforeAll(async () => {
    system = await startSystem();
    client = api(system.url);
    for (const name of ['life-1', 'life-2']) {
      const response = await client.post('/v1/os-hosts', { name });
      expect(response.status, describeBody(response)).toBe(201);
      hostIds[name] = response.body.host.id;
    }
  });

  afterAll(async () => {
    await system?.stop();
  });

  afterEach((context) => {
    // a failure is easier to read with what the three processes said
    if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-6000)}`);
  });

  const create = async (name: string, host: string, start: string, end: string): Promise<LeaseView> => {
    const response = await client.post('/v1/leases', {
      name,
      start_date: start,
      end_date: end,
      reservations: [pinnedHost(host)],
      events: [],
    });
    expect(response.status, describeBody(response)).toBe(201);
    return response.body.lease;
  };

  const show = async (leaseId: string): Promise<LeaseView> => {
    const response = await client.get(`/v1/leases/${leaseId}`);
    expect(response.status, describeBody(response)).toBe(200);
    return response.body.lease;
  };

  /** Polls the lease until `accept` holds, for at most `timeoutMs`. */
  const waitFor = (leaseId: string, what: string, accept: (lease: LeaseView) => boolean, timeoutMs = 15_000): Promise<LeaseView> =>
    eventually(
      async () => {
        const lease = await show(leaseId);
        return accept(lease) ? lease : undefined;
      },
      timeoutMs,
      `${what} of lease ${leaseId}`,
    );

  /** The lease that tests 1, 2 and 4 share. */
  let first: LeaseView;
  /** Epoch ms of its start (the minute it was created). */
  let firstStartMs: number;
  let firstEnd: string;

  it('a lease starting "now" becomes ACTIVE within seconds, then runs its before-end at once (#42, #43)', async () => {
    const before = Date.now();
    firstEnd = blazarDate(5, before);
    first = await create('life-now', 'life-1', 'now', firstEnd);
    const after = Date.now();
    expect(first.status).toBe('PENDING');
    // "now" is the current minute, truncated
    expect([tDate(blazarDate(0, before)), tDate(blazarDate(0, after))]).toContain(first.start_date);
    firstStartMs = tDateMs(first.start_date);
    expect(first.end_date).toBe(tDate(firstEnd));
    // shorter than 60 minutes: before_end clamped to the start, as upstream does
    expect(eventOf(first, 'before_end_lease')?.time).toBe(first.start_date);

    const active = await waitFor(first.id, 'ACTIVE', (lease) => lease.status === 'ACTIVE', 10_000);
    expect(eventOf(active, 'start_lease')?.status).toBe('DONE');
    expect(eventOf(active, 'end_lease')?.status).toBe('UNDONE');
    expect(active.reservations.map((r) => r.status)).toEqual(['active']);

    const afterBeforeEnd = await waitFor(
      first.id,
      'before_end_lease DONE',
      (lease) => eventOf(lease, 'before_end_lease')?.status === 'DONE',
      10_000,
    );
    expect(afterBeforeEnd.status).toBe('ACTIVE');
  });

  it('refuses to move the start of an ACTIVE lease: 400 (#44)', async () => {
    const response = await client.put(`/v1/leases/${first.id}`, { start_date: blazarDate(60) });
    expect(response.status, describeBody(response)).toBe(400);
    expect(response.body).toEqual({
      error_code: 400,
      error_message: 'Cannot modify the start date of already started leases',
      error_name: 400,
    });
    const lease = await show(first.id);
    expect(lease.status).toBe('ACTIVE');
    expect(lease.start_date).toBe(first.start_date);
  });

  it('DELETE of an ACTIVE lease answers 204, then 404, and the host can be leased again (#45)', async () => {
    const end = blazarDate(5);
    const lease = await create('life-delete', 'life-2', 'now', end);
    await waitFor(lease.id, 'ACTIVE', (l) => l.status === 'ACTIVE', 10_000);

    const deleted = await client.delete(`/v1/leases/${lease.id}`);
    expect(deleted.status, describeBody(deleted)).toBe(204);
    const gone = await client.get(`/v1/leases/${lease.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error_code: 404, error_message: `Object with {'lease_id': '${lease.id}'} not found`, error_name: 404 });
    const listed = await client.get('/v1/leases');
    expect(listed.body.leases.map((l: { id: string }) => l.id)).not.toContain(lease.id);
    const again = await client.delete(`/v1/leases/${lease.id}`);
    expect(again.status).toBe(404);

    const allocation = await client.get(`/v1/os-hosts/${hostIds['life-2']}/allocation`);
    expect(allocation.body.allocation.reservations).toEqual([]);
    const next = await create('life-after-delete', 'life-2', 'now', end);
    expect(next.id).toMatch(UUID);
  });

  it("a PUT that changes nothing answers the position of the lease's latest event (what another API process must have read to show it)", async () => {
    const lease = await create('life-unchanged', 'life-2', blazarDate(600), blazarDate(660));
    const renamed = await client.put(`/v1/leases/${lease.id}`, { name: 'life-unchanged-2' });
    expect(renamed.status, describeBody(renamed)).toBe(200);
    const again = await client.put(`/v1/leases/${lease.id}`, { name: 'life-unchanged-2' });
    expect(again.status, describeBody(again)).toBe(200);
    expect(Number(renamed.headers.get('x-leasehold-position'))).toBeGreaterThan(0);
    expect(again.headers.get('x-leasehold-position')).toBe(renamed.headers.get('x-leasehold-position'));
    expect((await client.delete(`/v1/leases/${lease.id}`)).status).toBe(204);
  });

  it('PUT {"end_date": "now"} ends an ACTIVE lease at once: TERMINATED, reservations deleted, host free again', async () => {
    // "now" is the current minute and the end must come after the start: wait for the next minute
    await eventually(async () => (minuteOf(Date.now()) > minuteOf(firstStartMs) ? true : undefined), 65_000, 'the minute after the start');

    const ended = await client.put(`/v1/leases/${first.id}`, { end_date: 'now' });
    expect(ended.status, describeBody(ended)).toBe(200);
    const endMinute = tDate(blazarDate(0));
    expect(ended.body.lease.end_date).toBe(endMinute);
    expect(eventOf(ended.body.lease, 'end_lease')?.time).toBe(endMinute);

    const terminated = await waitFor(first.id, 'TERMINATED', (lease) => lease.status === 'TERMINATED', 10_000);
    expect(eventOf(terminated, 'start_lease')?.status).toBe('DONE');
    expect(eventOf(terminated, 'end_lease')?.status).toBe('DONE');
    expect(terminated.end_date).toBe(endMinute);
    expect(terminated.reservations.map((r) => r.status)).toEqual(['deleted']);

    // the rest of the original window is bookable again on the same host
    const replacement = await create('life-replacement', 'life-1', 'now', firstEnd);
    expect(replacement.end_date).toBe(tDate(firstEnd));
    // and the ended lease can still be renamed, like upstream
    const renamed = await client.put(`/v1/leases/${first.id}`, { name: 'life-now-renamed' });
    expect(renamed.status, describeBody(renamed)).toBe(200);
    expect(renamed.body.lease).toMatchObject({ name: 'life-now-renamed', status: 'TERMINATED' });
    const refused = await client.put(`/v1/leases/${first.id}`, { end_date: addMinutes(blazarDate(0), 30) });
    expect(refused.status, describeBody(refused)).toBe(400);
    expect(refused.body.error_message).toBe('Terminated leases can only be renamed');
  }, 120_000);
});
