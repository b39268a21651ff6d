/**
 * Availability through HTTP against the running system (default configuration, cleaning time 0):
 * POST and GET /v1/availability answer the earliest windows a lease request would be admitted in,
 * with the free counts per reservation; a lease created at the first window is admitted; a lease
 * refused for lack of capacity carries the earliest alternatives in Blazar's error body, and the
 * first alternative is then admitted; GET /v1/leases/{id}/extension says how far a lease can grow.
 * Every test books its own day in 2034 on hosts with its own capability, so tests do not meet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/http.js';
import { describeBody } from '../helpers/lease-client.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

type Client = ReturnType<typeof api>;

const on = (day: number, time: string): string => `2034-05-${String(day).padStart(2, '0')} ${time}`;
const hostsOf = (group: string, min: number) => ({
  resource_type: 'physical:host',
  min,
  max: min,
  hypervisor_properties: '',
  resource_properties: `["=", "$group", "${group}"]`,
});

describe('availability (api + projector + reactor)', () => {
  let system: RunningSystem;
  let client: Client;

  const registerHosts = async (group: string, count: number): Promise<void> => {
    for (let i = 0; i < count; i++) {
      const response = await client.post('/v1/os-hosts', { name: `${group}-${i}`, group });
      expect(response.status, describeBody(response)).toBe(201);
    }
  };

  const lease = (name: string, start: string, end: string, reservations: unknown[]) =>
    client.post('/v1/leases', { name, start_date: start, end_date: end, reservations });

  beforeAll(async () => {
    system = await startSystem();
    client = api(system.url);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('answers the earliest windows of a request, "2 of 3 hosts free", and a lease at the first window is admitted', async () => {
    await registerHosts('avail-a', 3);
    expect((await lease('a-busy', on(1, '10:00'), on(1, '14:00'), [hostsOf('avail-a', 2)])).status).toBe(201);
    const search = await client.post('/v1/availability', {
      reservations: [hostsOf('avail-a', 2)],
      duration: 'PT3H',
      not_before: on(1, '09:00'),
      not_after: on(1, '23:00'),
      limit: 2,
    });
    expect(search.status, describeBody(search)).toBe(200);
    expect(search.body.windows).toEqual([
      {
        start_date: on(1, '14:00'),
        end_date: on(1, '17:00'),
        reservations: [{ resource_type: 'physical:host', requested: 2, matching: 3, free: 3 }],
      },
      {
        start_date: on(1, '17:00'),
        end_date: on(1, '20:00'),
        reservations: [{ resource_type: 'physical:host', requested: 2, matching: 3, free: 3 }],
      },
    ]);
    const one = await client.post('/v1/availability', {
      reservations: [hostsOf('avail-a', 1)],
      duration: 60,
      not_before: on(1, '11:00'),
      limit: 1,
    });
    expect(one.body.windows[0]).toEqual({
      start_date: on(1, '11:00'),
      end_date: on(1, '12:00'),
      reservations: [{ resource_type: 'physical:host', requested: 1, matching: 3, free: 1 }],
    });
    const first = search.body.windows[0];
    const created = await lease('a-offered', first.start_date, first.end_date, [hostsOf('avail-a', 2)]);
    expect(created.status, describeBody(created)).toBe(201);
  });

  it('GET for one reservation as query parameters gives the same windows as POST', async () => {
    await registerHosts('avail-g', 1);
    expect((await lease('g-busy', on(2, '08:00'), on(2, '12:30'), [hostsOf('avail-g', 1)])).status).toBe(201);
    const query = new URLSearchParams({
      resource_type: 'physical:host',
      min: '1',
      max: '1',
      hypervisor_properties: '',
      resource_properties: '["=", "$group", "avail-g"]',
      duration: '90',
      not_before: on(2, '08:00'),
      limit: '1',
    });
    const reply = await client.get(`/v1/availability?${query.toString()}`);
    expect(reply.status, describeBody(reply)).toBe(200);
    expect(reply.body.windows.map((w: { start_date: string }) => w.start_date)).toEqual([on(2, '12:30')]);
  });

  it('a lease refused for lack of hosts offers the earliest alternatives, and the first one is admitted', async () => {
    await registerHosts('avail-r', 2);
    expect((await lease('r-busy', on(3, '10:00'), on(3, '12:00'), [hostsOf('avail-r', 1)])).status).toBe(201);
    const refused = await lease('r-wanted', on(3, '11:00'), on(3, '13:00'), [hostsOf('avail-r', 2)]);
    expect(refused.status, describeBody(refused)).toBe(409);
    expect(refused.body).toEqual({
      error_code: 409,
      error_name: 409,
      error_message:
        'Not enough hosts available: 2 reservable hosts match the requested properties and 1 of them is free for the whole lease (cleaning time included), 2 requested (min).' +
        ` Earliest alternative: ${on(3, '12:00')} to ${on(3, '14:00')}.`,
      alternatives: [
        { start_date: on(3, '12:00'), end_date: on(3, '14:00') },
        { start_date: on(3, '14:00'), end_date: on(3, '16:00') },
        { start_date: on(3, '16:00'), end_date: on(3, '18:00') },
      ],
    });
    const [first] = refused.body.alternatives;
    const taken = await lease('r-taken', first.start_date, first.end_date, [hostsOf('avail-r', 2)]);
    expect(taken.status, describeBody(taken)).toBe(201);
  });

  it('an update refused for lack of hosts offers windows for the same change', async () => {
    await registerHosts('avail-u', 1);
    expect((await lease('u-busy', on(4, '12:00'), on(4, '13:00'), [hostsOf('avail-u', 1)])).status).toBe(201);
    const mine = await lease('u-mine', on(4, '09:00'), on(4, '10:00'), [hostsOf('avail-u', 1)]);
    expect(mine.status).toBe(201);
    const moved = await client.put(`/v1/leases/${mine.body.lease.id}`, { start_date: on(4, '11:00'), end_date: on(4, '13:00') });
    expect(moved.status, describeBody(moved)).toBe(409);
    expect(moved.body.alternatives[0]).toEqual({ start_date: on(4, '13:00'), end_date: on(4, '15:00') });
    const again = await client.put(`/v1/leases/${mine.body.lease.id}`, { start_date: on(4, '13:00'), end_date: on(4, '15:00') });
    expect(again.status, describeBody(again)).toBe(200);
  });

  it("a request that never fits offers no alternative and keeps upstream's message as it was", async () => {
    await registerHosts('avail-n', 1);
    const refused = await lease('n-too-many', on(5, '10:00'), on(5, '11:00'), [hostsOf('avail-n', 2)]);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error_code: 409,
      error_name: 409,
      error_message:
        'Not enough hosts available: 1 reservable host matches the requested properties and 1 of them is free for the whole lease (cleaning time included), 2 requested (min)',
      alternatives: [],
    });
  });

  it('tells how far a lease can be prolonged on its hosts, and the end of the booking in the way', async () => {
    await registerHosts('avail-x', 1);
    const mine = await lease('x-mine', on(6, '09:00'), on(6, '10:00'), [hostsOf('avail-x', 1)]);
    expect((await lease('x-next', on(6, '15:00'), on(6, '17:00'), [hostsOf('avail-x', 1)])).status).toBe(201);
    const reply = await client.get(`/v1/leases/${mine.body.lease.id}/extension`);
    expect(reply.status, describeBody(reply)).toBe(200);
    expect(reply.body.extension).toEqual({
      lease_id: mine.body.lease.id,
      end_date: on(6, '10:00'),
      max_end_date: on(6, '15:00'),
      conflict_end_date: on(6, '17:00'),
    });
    const prolonged = await client.put(`/v1/leases/${mine.body.lease.id}`, { end_date: on(6, '15:00') });
    expect(prolonged.status, describeBody(prolonged)).toBe(200);
    const tooFar = await client.put(`/v1/leases/${mine.body.lease.id}`, { end_date: on(6, '15:01') });
    expect(tooFar.status).toBe(409);
  });

  it("refuses bad input with Blazar's 400 body and answers no window past not_after", async () => {
    const bad = async (body: unknown, message: string) => {
      const reply = await client.post('/v1/availability', body);
      expect(reply.status, describeBody(reply)).toBe(400);
      expect(reply.body).toEqual({ error_code: 400, error_name: 400, error_message: message });
    };
    await bad({ duration: 60 }, 'Missing parameter reservations');
    await bad(
      { reservations: [hostsOf('x', 1)], duration: 0 },
      'Malformed parameter duration (whole minutes from 1 to 5270400, as an integer or an ISO 8601 duration)',
    );
    await bad(
      { reservations: [hostsOf('x', 1)], duration: 'PT30S' },
      'Malformed parameter duration (whole minutes from 1 to 5270400, as an integer or an ISO 8601 duration)',
    );
    await bad({ reservations: [hostsOf('x', 1)], duration: 60, limit: 51 }, 'Malformed parameter limit (an integer from 1 to 50)');
    await bad(
      { reservations: [{ resource_type: 'physical:host', min: 2, max: 1 }], duration: 60 },
      'Invalid values for min/max of hosts. Max must be equal to or larger than min.',
    );
    await bad(
      { reservations: [hostsOf('x', 1)], duration: 60, not_before: on(7, '12:00'), not_after: on(7, '11:00') },
      'not_after must be later than not_before (and than now)',
    );
    await registerHosts('avail-c', 1);
    expect((await lease('c-busy', on(7, '09:00'), on(7, '12:00'), [hostsOf('avail-c', 1)])).status).toBe(201);
    const cut = await client.post('/v1/availability', {
      reservations: [hostsOf('avail-c', 1)],
      duration: 120,
      not_before: on(7, '09:00'),
      not_after: on(7, '13:59'),
    });
    expect(cut.body.windows).toEqual([]);
    expect(cut.body.reason).toMatchObject({ code: 'ALL_BOOKED', blocked_by: { code: 'NOT_ENOUGH_HOSTS', at: on(7, '09:00') } });
  });

  it('an empty answer says why: asking 5 hosts where 2 match is what a 409 would say, with what matched and what was asked', async () => {
    await registerHosts('avail-w', 2);
    const search = await client.post('/v1/availability', {
      reservations: [hostsOf('avail-w', 5)],
      duration: 60,
      not_before: on(8, '09:00'),
      not_after: on(8, '18:00'),
    });
    expect(search.status, describeBody(search)).toBe(200);
    const refused = await lease('w-five', on(8, '09:00'), on(8, '10:00'), [hostsOf('avail-w', 5)]);
    expect(refused.status).toBe(409);
    expect(search.body).toEqual({
      windows: [],
      searched_until: null,
      reason: {
        code: 'NEVER_FITS',
        message: `No window: the request is refused even where nothing is booked (${on(8, '09:00')}): ${refused.body.error_message as string}`,
        asked: { not_before: on(8, '09:00'), not_after: on(8, '18:00'), duration: 60 },
        reservations: [{ resource_type: 'physical:host', requested: 5, matching: 2, free: 2 }],
        blocked_by: { code: 'NOT_ENOUGH_HOSTS', message: refused.body.error_message, at: on(8, '09:00') },
        fits_at: null,
      },
    });
    const found = await client.post('/v1/availability', {
      reservations: [hostsOf('avail-w', 2)],
      duration: 60,
      not_before: on(8, '09:00'),
    });
    expect(found.body.reason).toBeNull();
  });
});
