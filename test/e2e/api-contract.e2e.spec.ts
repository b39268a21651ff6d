/**
 * The HTTP contract of the API against the running system (api + projector + reactor), checked
 * against upstream Blazar's captures (/work/shared/reference/blazar-captures/transcript.md, "#n"
 * below) and docs/compatibility.md for Leasehold's deliberate differences. Every refused write is
 * also checked to leave the ledger (events.sqlite) exactly as it was.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  EVENT_KEYS,
  HOST_KEYS,
  LEASE_KEYS,
  REQUEST_ID,
  RESERVATION_KEYS,
  TIMESTAMP,
  T_DATE,
  UUID,
  addMinutes,
  dayAt,
  hostsWith,
  ledgerCount,
  pinnedHost,
  tDate,
} from '../helpers/api-fixtures.js';
import { type JsonResponse, api, hostReservation } from '../helpers/http.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';
import { withoutCounterOffer } from '../helpers/lease-client.js';

type Client = ReturnType<typeof api>;

const blazarError = (status: number, message: string | RegExp) => ({
  error_code: status,
  error_message: typeof message === 'string' ? message : expect.stringMatching(message),
  error_name: status,
});

/** Upstream fills updated_at while creating (#19); Leasehold's atomic create may leave it null. */
const nullOrTimestamp = expect.toSatisfy(
  (value: unknown) => value === null || (typeof value === 'string' && TIMESTAMP.test(value)),
  'null or a timestamp',
);

const timestampMs = (value: string): number => Date.parse(`${value.replace(' ', 'T')}Z`);

/** Helpers bound to one running system. */
const bind = (system: () => RunningSystem, client: () => Client) => {
  const describeBody = (response: JsonResponse): string => `${response.status} ${JSON.stringify(response.body)}`;

  /** Sends a write that must be refused: checks status and Blazar error body, and that no event was appended. */
  const rejected = async (send: () => Promise<JsonResponse>, status: number, message: string | RegExp): Promise<JsonResponse> => {
    const before = ledgerCount(system().dataDir);
    const response = await send();
    expect(response.status, describeBody(response)).toBe(status);
    expect(withoutCounterOffer(response.body)).toEqual(blazarError(status, message));
    expect(ledgerCount(system().dataDir), 'a refused write must not append to the ledger').toBe(before);
    return response;
  };

  const registerHost = async (body: Record<string, unknown>) => {
    const response = await client().post('/v1/os-hosts', body);
    expect(response.status, describeBody(response)).toBe(201);
    return response.body.host;
  };

  const createLease = async (body: Record<string, unknown>) => {
    const response = await client().post('/v1/leases', body);
    expect(response.status, describeBody(response)).toBe(201);
    return response.body.lease;
  };

  const showLease = async (leaseId: string) => {
    const response = await client().get(`/v1/leases/${leaseId}`);
    expect(response.status, describeBody(response)).toBe(200);
    return response.body.lease;
  };

  return { describeBody, rejected, registerHost, createLease, showLease };
};

describe('API contract (default configuration)', () => {
  let system: RunningSystem;
  let client: Client;
  const { describeBody, rejected, registerHost, createLease, showLease } = bind(
    () => system,
    () => client,
  );

  beforeAll(async () => {
    system = await startSystem();
    client = api(system.url);
  });

  afterAll(async () => {
    await system?.stop();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-6000)}`);
  });

  describe('version document', () => {
    it.each(['/', '/versions'])('GET %s answers 300 with exactly the v1 document, without a token', async (path) => {
      const response = await fetch(`${system.url}${path}`);
      expect(response.status).toBe(300);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const expected = {
        versions: [
          { id: 'v1.0', status: 'CURRENT', links: [{ href: `${system.url}/v1`, rel: 'self' }], min_version: '1.0', max_version: '1.0' },
        ],
      };
      // exact text: same keys, same values, same order
      expect(await response.text()).toBe(JSON.stringify(expected));
    });
  });

  describe('OpenStack headers and microversions', () => {
    it('every /v1 response carries OpenStack-API-Version, Vary and a fresh req-<uuid> request id, errors included', async () => {
      const responses = [
        await client.get('/v1/leases'),
        await client.get('/v1/os-hosts'),
        await client.get('/v1/leases/no-such-lease'),
        await client.post('/v1/leases', { start_date: 'now' }),
      ];
      expect(responses.map((r) => r.status)).toEqual([200, 200, 404, 400]);
      for (const response of responses) {
        expect(response.headers.get('openstack-api-version')).toBe('reservation 1.0');
        expect(response.headers.get('vary')).toBe('OpenStack-API-Version');
        expect(response.headers.get('x-openstack-request-id')).toMatch(REQUEST_ID);
      }
      const ids = new Set(responses.map((r) => r.headers.get('x-openstack-request-id')));
      expect(ids.size).toBe(responses.length);
    });

    it('a malformed microversion is refused with 400 and nothing is written', async () => {
      const response = await rejected(
        () => client.post('/v1/os-hosts', { name: 'mv-host-400' }, { 'OpenStack-API-Version': 'reservation 1.a' }),
        400,
        'API Version String 1.a is of invalid format. Must be of format MajorNum.MinorNum.',
      );
      expect(response.headers.get('x-openstack-request-id')).toMatch(REQUEST_ID);
    });

    it('an unsupported microversion is refused with 406 and nothing is written', async () => {
      await rejected(
        () => client.post('/v1/os-hosts', { name: 'mv-host-406' }, { 'OpenStack-API-Version': 'reservation 1.2' }),
        406,
        'Version 1.2 is not supported by the API. Minimum is 1.0 and maximum is 1.0.',
      );
      const hosts = await client.get('/v1/os-hosts');
      expect(hosts.body.hosts.map((h: { hypervisor_hostname: string }) => h.hypervisor_hostname)).not.toContain('mv-host-406');
    });

    it.each([
      ['reservation latest'],
      ['reservation 1.0'],
      ['1.0'], // no service type: ignored
      ['1.a'], // no service type: ignored, even when malformed
      ['compute 2.95'], // another service's version: ignored
    ])('OpenStack-API-Version: %s is answered 200 with reservation 1.0', async (header) => {
      const response = await client.get('/v1/leases', { 'OpenStack-API-Version': header });
      expect(response.status, describeBody(response)).toBe(200);
      expect(response.headers.get('openstack-api-version')).toBe('reservation 1.0');
      expect(response.headers.get('vary')).toBe('OpenStack-API-Version');
    });
  });

  describe('hosts', () => {
    let host: Record<string, unknown> & { id: string };

    it('registers a host: 201 in upstream field order (#5/#8), capacity from the body, extra capabilities as strings', async () => {
      const response = await client.post('/v1/os-hosts', {
        name: 'ct-host-1',
        vcpus: '16',
        memory_mb: 65536,
        local_gb: '500',
        hypervisor_type: 'QEMU',
        gpu: 'true',
        rack: 'r1',
      });
      expect(response.status, describeBody(response)).toBe(201);
      expect(Object.keys(response.body)).toEqual(['host']);
      host = response.body.host;
      expect(Object.keys(host).slice(0, HOST_KEYS.length)).toEqual(HOST_KEYS);
      expect(Object.keys(host).slice(HOST_KEYS.length).sort()).toEqual(['gpu', 'rack']);
      expect(host).toEqual({
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: null,
        id: expect.stringMatching(/^\d+$/),
        vcpus: 16,
        cpu_info: '{}',
        hypervisor_type: 'QEMU',
        hypervisor_version: 0,
        hypervisor_hostname: 'ct-host-1',
        service_name: 'ct-host-1',
        memory_mb: 65536,
        local_gb: 500,
        status: null,
        availability_zone: '',
        trust_id: null,
        reservable: true,
        health_status: 'up',
        health_reasons: [],
        health_since: host.created_at,
        health_monitor: null,
        gpu: 'true',
        rack: 'r1',
      });
      expect(Math.abs(timestampMs(host.created_at as string) - Date.now())).toBeLessThan(60_000);
    });

    it('refuses a second host with the same name: 409', async () => {
      await rejected(
        () => client.post('/v1/os-hosts', { name: 'ct-host-1' }),
        409,
        `Host ct-host-1 is already registered with id ${host.id}`,
      );
    });

    it('refuses a host without a name: 400 Missing parameter name', async () => {
      await rejected(() => client.post('/v1/os-hosts', { gpu: 'true' }), 400, 'Missing parameter name');
    });

    it('refuses an extra capability key longer than 64 characters: 400 (64 is fine)', async () => {
      await rejected(
        () => client.post('/v1/os-hosts', { name: 'ct-long-key', ['k'.repeat(65)]: 'v' }),
        400,
        'Extra capability key too long',
      );
      const listed = await client.get('/v1/os-hosts');
      expect(listed.body.hosts.map((h: { hypervisor_hostname: string }) => h.hypervisor_hostname)).not.toContain('ct-long-key');
      const accepted = await registerHost({ name: 'ct-long-key', ['k'.repeat(64)]: 'v' });
      expect(accepted['k'.repeat(64)]).toBe('v');
    });

    it('lists and shows the host exactly as it was created', async () => {
      const listed = await client.get('/v1/os-hosts');
      expect(listed.status).toBe(200);
      expect(Object.keys(listed.body)).toEqual(['hosts']);
      expect(listed.body.hosts.filter((h: { id: string }) => h.id === host.id)).toEqual([host]);
      const shown = await client.get(`/v1/os-hosts/${host.id}`);
      expect(shown.status).toBe(200);
      expect(shown.body).toEqual({ host });
    });

    it('answers 404 for an unknown host (#15)', async () => {
      const response = await client.get('/v1/os-hosts/9999');
      expect(response.status).toBe(404);
      expect(response.body).toEqual(blazarError(404, "Object with {'host_id': '9999'} not found"));
    });

    it('updates and adds extra capabilities: 200 with the new values (#13), seen by the next read', async () => {
      const response = await client.put(`/v1/os-hosts/${host.id}`, { gpu: 'false', zone: 'z1' });
      expect(response.status, describeBody(response)).toBe(200);
      expect(response.body).toEqual({ host: { ...host, updated_at: expect.stringMatching(TIMESTAMP), gpu: 'false', zone: 'z1' } });
      expect((await client.get(`/v1/os-hosts/${host.id}`)).body).toEqual(response.body);
      host = response.body.host;
    });

    it('refuses an update with no data: 400 No data to update', async () => {
      await rejected(() => client.put(`/v1/os-hosts/${host.id}`, {}), 400, 'No data to update');
    });

    it('refuses capabilities nested under "values": 400, not 500', async () => {
      await rejected(() => client.put(`/v1/os-hosts/${host.id}`, { values: { gpu: 'maybe' } }), 400, /^Malformed parameter values/);
      expect((await client.get(`/v1/os-hosts/${host.id}`)).body.host).toEqual(host);
    });

    it('answers 404 when updating an unknown host', async () => {
      await rejected(() => client.put('/v1/os-hosts/9999', { gpu: 'true' }), 404, "Object with {'host_id': '9999'} not found");
    });

    it('a host set "reservable": false is left out of allocation (409) until set back', async () => {
      const maint = await registerHost({ name: 'ct-maint-1', ctmaint: 'yes' });
      const off = await client.put(`/v1/os-hosts/${maint.id}`, { reservable: false });
      expect(off.status, describeBody(off)).toBe(200);
      expect(off.body.host).toMatchObject({ id: maint.id, reservable: false, ctmaint: 'yes' });
      const lease = () => ({
        name: 'ct-maint-lease',
        start_date: dayAt(100, '10:00'),
        end_date: dayAt(100, '11:00'),
        reservations: [hostsWith('ctmaint', 'yes')],
      });
      await rejected(() => client.post('/v1/leases', lease()), 409, /^Not enough hosts available/);
      const on = await client.put(`/v1/os-hosts/${maint.id}`, { reservable: true });
      expect(on.status, describeBody(on)).toBe(200);
      expect(on.body.host.reservable).toBe(true);
      await createLease(lease());
    });

    it('deletes a free host: 204, then 404 on show and delete', async () => {
      const free = await registerHost({ name: 'ct-free-1' });
      const deleted = await client.delete(`/v1/os-hosts/${free.id}`);
      expect(deleted.status, describeBody(deleted)).toBe(204);
      expect(deleted.body).toBeNull();
      const shown = await client.get(`/v1/os-hosts/${free.id}`);
      expect(shown.status).toBe(404);
      expect(shown.body).toEqual(blazarError(404, `Object with {'host_id': '${free.id}'} not found`));
      await rejected(() => client.delete(`/v1/os-hosts/${free.id}`), 404, `Object with {'host_id': '${free.id}'} not found`);
      const listed = await client.get('/v1/os-hosts');
      expect(listed.body.hosts.map((h: { id: string }) => h.id)).not.toContain(free.id);
      // the name is free again; ids are never reused (docs/compatibility.md)
      const again = await registerHost({ name: 'ct-free-1' });
      expect(Number(again.id)).toBeGreaterThan(Number(free.id));
    });

    it('refuses to delete a reserved host: 409 (#41)', async () => {
      const busy = await registerHost({ name: 'ct-busy-1' });
      await createLease({
        name: 'ct-busy-lease',
        start_date: dayAt(101, '10:00'),
        end_date: dayAt(101, '11:00'),
        reservations: [pinnedHost('ct-busy-1')],
      });
      await rejected(() => client.delete(`/v1/os-hosts/${busy.id}`), 409, `Can't delete host ${busy.id}. The host is reserved.`);
      expect((await client.get(`/v1/os-hosts/${busy.id}`)).status).toBe(200);
    });
  });

  describe('resource properties', () => {
    beforeAll(async () => {
      await registerHost({ name: 'ct-prop-1', ctcolor: 'red', ctsecret: 's1' });
      await registerHost({ name: 'ct-prop-2', ctcolor: 'blue' });
    });

    const properties = async (query = '') => {
      const response = await client.get(`/v1/os-hosts/properties${query}`);
      expect(response.status, describeBody(response)).toBe(200);
      expect(Object.keys(response.body)).toEqual(['resource_properties']);
      return response.body.resource_properties as Record<string, unknown>[];
    };

    it('lists property names (#16)', async () => {
      const listed = await properties();
      for (const row of listed) expect(Object.keys(row)).toEqual(['property']);
      expect(listed).toEqual(expect.arrayContaining([{ property: 'ctcolor' }, { property: 'ctsecret' }]));
    });

    it('?detail=True shows privacy and the sorted distinct values (#17)', async () => {
      const detailed = await properties('?detail=True');
      expect(detailed.find((row) => row.property === 'ctcolor')).toEqual({ property: 'ctcolor', private: false, values: ['blue', 'red'] });
      expect(detailed.find((row) => row.property === 'ctsecret')).toEqual({ property: 'ctsecret', private: false, values: ['s1'] });
    });

    it('PATCH private true answers 200 with the resource_property (#18), then hides it unless ?all=True', async () => {
      const response = await client.patch('/v1/os-hosts/properties/ctsecret', { private: true });
      expect(response.status, describeBody(response)).toBe(200);
      expect(Object.keys(response.body)).toEqual(['resource_property']);
      const property = response.body.resource_property;
      expect(Object.keys(property)).toEqual(['created_at', 'updated_at', 'id', 'resource_type', 'property_name', 'private']);
      expect(property).toEqual({
        created_at: expect.stringMatching(T_DATE),
        updated_at: expect.stringMatching(T_DATE),
        id: expect.stringMatching(UUID),
        resource_type: 'physical:host',
        property_name: 'ctsecret',
        private: true,
      });

      expect(await properties()).not.toContainEqual({ property: 'ctsecret' });
      expect((await properties('?detail=True')).map((row) => row.property)).not.toContain('ctsecret');
      expect(await properties('?all=True')).toContainEqual({ property: 'ctsecret' });
      expect((await properties('?detail=True&all=True')).find((row) => row.property === 'ctsecret')).toEqual({
        property: 'ctsecret',
        private: true,
        values: ['s1'],
      });
      // the literal meaning of False (docs/compatibility.md)
      expect(await properties('?all=False')).not.toContainEqual({ property: 'ctsecret' });
    });

    it('PATCH private false makes it listed again', async () => {
      const response = await client.patch('/v1/os-hosts/properties/ctsecret', { private: false });
      expect(response.status, describeBody(response)).toBe(200);
      expect(response.body.resource_property).toMatchObject({ property_name: 'ctsecret', private: false });
      expect(await properties()).toContainEqual({ property: 'ctsecret' });
    });

    it('PATCH of an unknown property answers 404', async () => {
      await rejected(() => client.patch('/v1/os-hosts/properties/ct-no-such-property', { private: true }), 404, /ct-no-such-property/);
    });

    it('PATCH with a non-boolean private answers 400', async () => {
      await rejected(() => client.patch('/v1/os-hosts/properties/ctcolor', { private: 'yes' }), 400, /private/);
      await rejected(() => client.patch('/v1/os-hosts/properties/ctcolor', {}), 400, 'Missing parameter private');
    });
  });

  describe('lease creation', () => {
    beforeAll(async () => {
      await registerHost({ name: 'ct-lc-1', ctpool: 'lc' });
      await registerHost({ name: 'ct-lc-2', ctpool: 'lc' });
      await registerHost({ name: 'ct-lc-3', ctpool: 'ne' });
      await registerHost({ name: 'ct-lc-4', ctpool: 'ne' });
      await registerHost({ name: 'ct-lc-5', memory_mb: 131072, ctrack: 'ct-r1' });
    });

    it('creates a lease: 201 with the lease, reservation and events of #19 (order and formats)', async () => {
      const start = dayAt(200, '02:14');
      const end = dayAt(200, '04:14');
      const response = await client.post('/v1/leases', {
        name: 'lease-1',
        start_date: start,
        end_date: end,
        reservations: [hostReservation()],
        events: [],
      });
      expect(response.status, describeBody(response)).toBe(201);
      expect(Object.keys(response.body)).toEqual(['lease']);
      const lease = response.body.lease;
      expect(Object.keys(lease)).toEqual(LEASE_KEYS);
      expect(lease).toEqual({
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: nullOrTimestamp,
        id: expect.stringMatching(UUID),
        name: 'lease-1',
        user_id: expect.any(String),
        project_id: expect.any(String),
        start_date: tDate(start),
        end_date: tDate(end),
        trust_id: null,
        status: 'PENDING',
        degraded: false,
        reservations: [expect.any(Object)],
        events: [expect.any(Object), expect.any(Object), expect.any(Object)],
      });
      expect(lease.start_date).toMatch(T_DATE);

      const [reservation] = lease.reservations;
      expect(Object.keys(reservation)).toEqual(RESERVATION_KEYS);
      expect(reservation).toEqual({
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: nullOrTimestamp,
        id: expect.stringMatching(UUID),
        lease_id: lease.id,
        resource_id: expect.stringMatching(UUID),
        resource_type: 'physical:host',
        status: 'pending',
        missing_resources: false,
        resources_changed: false,
        hypervisor_properties: '',
        resource_properties: '',
        before_end: 'default',
        min: 1,
        max: 1,
        end_action: 'delete_servers_on_hosts',
      });

      for (const event of lease.events) expect(Object.keys(event)).toEqual(EVENT_KEYS);
      const event = (type: string, time: string) => ({
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: null,
        id: expect.stringMatching(UUID),
        lease_id: lease.id,
        event_type: type,
        time: tDate(time),
        status: 'UNDONE',
      });
      expect(lease.events).toEqual([event('start_lease', start), event('end_lease', end), event('before_end_lease', addMinutes(end, -60))]);
      expect(new Set(lease.events.map((e: { id: string }) => e.id)).size).toBe(3);
      expect(await showLease(lease.id)).toEqual(lease);
    });

    it('clamps the default before_end_lease to the start for a lease shorter than 60 minutes (#42)', async () => {
      const start = dayAt(201, '10:00');
      const lease = await createLease({
        name: 'ct-short',
        start_date: start,
        end_date: addMinutes(start, 30),
        reservations: [hostReservation()],
      });
      expect(lease.events.find((e: { event_type: string }) => e.event_type === 'before_end_lease').time).toBe(tDate(start));
    });

    it('creates a lease without reservations (tempest leases.yaml)', async () => {
      const start = dayAt(202, '10:00');
      const lease = await createLease({ name: 'ct-empty', start_date: start, end_date: addMinutes(start, 120) });
      expect(lease).toMatchObject({ name: 'ct-empty', status: 'PENDING', reservations: [] });
      expect(lease.events.map((e: { event_type: string }) => e.event_type)).toEqual(['start_lease', 'end_lease', 'before_end_lease']);
    });

    it('stores property queries verbatim and allocates by them (#21)', async () => {
      const start = dayAt(203, '02:14');
      const reservation = {
        resource_type: 'physical:host',
        min: 1,
        max: 1,
        hypervisor_properties: '[">=", "$memory_mb", "4096"]',
        resource_properties: '["=", "$ctrack", "ct-r1"]',
      };
      const lease = await createLease({
        name: 'lease-gpu',
        start_date: start,
        end_date: addMinutes(start, 120),
        reservations: [reservation],
        events: [],
      });
      expect(lease.reservations[0]).toMatchObject({
        hypervisor_properties: reservation.hypervisor_properties,
        resource_properties: reservation.resource_properties,
      });
      const allocations = await client.get(`/v1/os-hosts/allocations?lease_id=${lease.id}`);
      const hosts = await client.get('/v1/os-hosts');
      const lc5 = hosts.body.hosts.find((h: { hypervisor_hostname: string }) => h.hypervisor_hostname === 'ct-lc-5');
      expect(
        allocations.body.allocations
          .filter((a: { reservations: unknown[] }) => a.reservations.length > 0)
          .map((a: { resource_id: string }) => a.resource_id),
      ).toEqual([lc5.id]);
    });

    const window = () => ({ start_date: dayAt(210, '02:14'), end_date: dayAt(210, '04:14') });
    const valid = (): Record<string, unknown> => ({ name: 'ct-bad', ...window(), reservations: [hostReservation()], events: [] });
    const withReservation = (changes: Record<string, unknown>) => ({ ...valid(), reservations: [{ ...hostReservation(), ...changes }] });
    const without = (body: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(body).filter(([k]) => k !== key));

    it.each<[string, () => unknown, string | RegExp]>([
      [
        '#20 a requirement with a number',
        () => withReservation({ hypervisor_properties: '[">=", "$memory_mb", 4096]' }),
        "Malformed requirements ['>=', '$memory_mb', 4096]",
      ],
      ['a requirement that is not JSON', () => withReservation({ resource_properties: 'gpu=true' }), 'Malformed requirements gpu=true'],
      [
        '#24 a start in the past',
        () => ({ ...valid(), start_date: '2020-01-01 00:00', end_date: '2020-01-02 00:00' }),
        'Start date must be later than current date',
      ],
      [
        '#25 an end before the start',
        () => ({ ...valid(), start_date: dayAt(210, '04:14'), end_date: dayAt(210, '02:14') }),
        'End date must be later than start date.',
      ],
      ['an end equal to the start', () => ({ ...valid(), end_date: dayAt(210, '02:14') }), 'End date must be later than start date.'],
      [
        '#26 min greater than max',
        () => withReservation({ min: 2, max: 1 }),
        'Invalid values for min/max of hosts. Max must be equal to or larger than min.',
      ],
      [
        '#27 a date in another format',
        () => ({ ...valid(), start_date: 'tomorrow' }),
        'tomorrow is an invalid date. Required format: %Y-%m-%d %H:%M',
      ],
      [
        'a date with seconds',
        () => ({ ...valid(), start_date: `${dayAt(210, '02:14')}:00` }),
        `${dayAt(210, '02:14')}:00 is an invalid date. Required format: %Y-%m-%d %H:%M`,
      ],
      ['#28 no name', () => without(valid(), 'name'), 'Missing parameter name'],
      ['no end_date', () => without(valid(), 'end_date'), 'Missing parameter end_date'],
      [
        'a reservation without resource_type',
        () => ({ ...valid(), reservations: [{ min: 1, max: 1 }] }),
        'Missing parameter resource_type',
      ],
      ['a reservation without max', () => ({ ...valid(), reservations: [without(hostReservation(), 'max')] }), 'Missing parameter max'],
      ['min "0"', () => withReservation({ min: '0', max: 1 }), 'Malformed parameter min and max (must be greater than or equal to 1)'],
      [
        'min 0 and max 0',
        () => withReservation({ min: 0, max: 0 }),
        'Malformed parameter min and max (must be greater than or equal to 1)',
      ],
      ['a min that is not an integer', () => withReservation({ min: 'one' }), 'Malformed parameter min'],
      ['an unknown before_end action', () => withReservation({ before_end: 'explode' }), 'Malformed parameter before_end'],
      [
        '#29 an unknown resource type (upstream 500)',
        () => ({ ...valid(), reservations: [{ resource_type: 'nope:nope', min: 1, max: 1 }] }),
        'The nope:nope resource type is not supported',
      ],
      [
        'before_end_date after the end (upstream 403)',
        () => ({ ...valid(), before_end_date: dayAt(210, '05:00') }),
        /^Datetime is out of lease limits/,
      ],
      [
        'before_end_date before the start',
        () => ({ ...valid(), before_end_date: dayAt(210, '01:00') }),
        /^Datetime is out of lease limits/,
      ],
      ['before_end_date at the start', () => ({ ...valid(), before_end_date: dayAt(210, '02:14') }), /^Datetime is out of lease limits/],
      ['a JSON array instead of an object', () => [valid()], /^Malformed/],
    ])('refuses %s with 400 and writes nothing', async (_title, body, message) => {
      await rejected(() => client.post('/v1/leases', body()), 400, message);
    });

    it('refuses a malformed JSON body with 400 in the Blazar error body and writes nothing', async () => {
      await rejected(() => client.post('/v1/leases', '{"name": "ct-broken", "start_date": '), 400, /.+/);
      await rejected(() => client.put('/v1/os-hosts/1', '{"gpu": '), 400, /.+/);
    });

    it('accepts "min": "2" as a string and allocates two hosts', async () => {
      const start = dayAt(204, '10:00');
      const lease = await createLease({
        name: 'ct-string-min',
        start_date: start,
        end_date: addMinutes(start, 60),
        reservations: [{ ...hostsWith('ctpool', 'lc'), min: '2', max: '2' }],
      });
      expect(lease.reservations[0]).toMatchObject({ min: 2, max: 2 });
      const allocations = await client.get(`/v1/os-hosts/allocations?lease_id=${lease.id}`);
      expect(allocations.body.allocations.filter((a: { reservations: unknown[] }) => a.reservations.length === 1)).toHaveLength(2);
    });

    it('answers 409 with how many hosts match and how many are free when there are not enough (upstream 500)', async () => {
      const start = dayAt(205, '10:00');
      const lease = (name: string, min: number) => ({
        name,
        start_date: start,
        end_date: addMinutes(start, 60),
        reservations: [hostsWith('ctpool', 'ne', min, min)],
      });
      await createLease(lease('ct-ne-first', 1));
      await rejected(
        () => client.post('/v1/leases', lease('ct-ne-second', 2)),
        409,
        /^Not enough hosts available: 2 reservable hosts match the requested properties and 1 of them is free\b.*2 requested/,
      );
      await rejected(
        () => client.post('/v1/leases', { ...lease('ct-ne-none', 1), reservations: [hostsWith('ctpool', 'no-such-pool')] }),
        409,
        /^Not enough hosts available: no reservable host matches the requested properties/,
      );
    });

    it('ignores unknown top-level keys and events (201)', async () => {
      const start = dayAt(206, '10:00');
      const lease = await createLease({
        name: 'lease-uf',
        bogus: 1,
        start_date: start,
        end_date: addMinutes(start, 60),
        reservations: [hostReservation()],
        events: [{ event_type: 'start_lease', time: start }],
      });
      expect(Object.keys(lease)).toEqual(LEASE_KEYS);
      expect(lease.events).toHaveLength(3);
    });
  });

  describe('read-your-writes', () => {
    beforeAll(async () => {
      await registerHost({ name: 'ct-ryw-1' });
    });

    it('create, update and delete are visible to the very next read (20 rounds, no sleep)', async () => {
      const start = dayAt(240, '10:00');
      for (let round = 0; round < 20; round++) {
        const name = `ct-ryw-${round}`;
        const created = await createLease({
          name,
          start_date: start,
          end_date: addMinutes(start, 60),
          reservations: [pinnedHost('ct-ryw-1')],
        });
        expect(await showLease(created.id), `round ${round}: show after create`).toEqual(created);
        const listed = await client.get('/v1/leases');
        expect(
          listed.body.leases.find((l: { id: string }) => l.id === created.id),
          `round ${round}: list after create`,
        ).toEqual(created);

        const updated = await client.put(`/v1/leases/${created.id}`, { name: `${name}-renamed` });
        expect(updated.status, describeBody(updated)).toBe(200);
        expect(updated.body.lease.name).toBe(`${name}-renamed`);
        expect(await showLease(created.id), `round ${round}: show after update`).toEqual(updated.body.lease);

        const deleted = await client.delete(`/v1/leases/${created.id}`);
        expect(deleted.status, describeBody(deleted)).toBe(204);
        const gone = await client.get(`/v1/leases/${created.id}`);
        expect(gone.status, `round ${round}: show after delete`).toBe(404);
        expect(gone.body).toEqual(blazarError(404, `Object with {'lease_id': '${created.id}'} not found`));
        const after = await client.get('/v1/leases');
        expect(
          after.body.leases.map((l: { id: string }) => l.id),
          `round ${round}: list after delete`,
        ).not.toContain(created.id);
      }
    });
  });

  describe('lease update', () => {
    const start = () => dayAt(220, '02:14');
    let lease: { id: string; reservations: { id: string }[] } & Record<string, unknown>;
    const hostIds: string[] = [];

    beforeAll(async () => {
      hostIds.push((await registerHost({ name: 'ct-upd-1', ctpool: 'upd' })).id);
      hostIds.push((await registerHost({ name: 'ct-upd-2', ctpool: 'upd' })).id);
      // 02:14 -> 04:14, before end at 03:14
      lease = await createLease({
        name: 'ct-upd',
        start_date: start(),
        end_date: addMinutes(start(), 120),
        reservations: [hostsWith('ctpool', 'upd')],
      });
    });

    const times = (view: { events: { event_type: string; time: string }[] }) =>
      Object.fromEntries(view.events.map((e) => [e.event_type, e.time]));

    it('PUT a later end_date: 200, the end moves and before_end_lease keeps its distance to the end (cli.txt)', async () => {
      const current = await showLease(lease.id);
      const response = await client.put(`/v1/leases/${lease.id}`, { end_date: addMinutes(start(), 240) });
      expect(response.status, describeBody(response)).toBe(200);
      const updated = response.body.lease;
      expect(Object.keys(updated)).toEqual(LEASE_KEYS);
      expect(updated.start_date).toBe(tDate(start()));
      expect(updated.end_date).toBe(tDate(addMinutes(start(), 240)));
      const before = times(current);
      const after = times(updated);
      expect(after.start_lease).toBe(before.start_lease);
      expect(after.end_lease).toBe(tDate(addMinutes(start(), 240)));
      const offset = Date.parse(`${before.end_lease}Z`) - Date.parse(`${before.before_end_lease}Z`);
      expect(Date.parse(`${after.end_lease}Z`) - Date.parse(`${after.before_end_lease}Z`)).toBe(offset);
      expect(updated.updated_at).toMatch(TIMESTAMP);
      expect(await showLease(lease.id)).toEqual(updated);
      const allocation = await client.get(`/v1/os-hosts/allocations?lease_id=${lease.id}`);
      const rows = allocation.body.allocations.flatMap((a: { reservations: unknown[] }) => a.reservations);
      expect(rows).toEqual([
        { id: lease.reservations[0]?.id, lease_id: lease.id, start_date: tDate(start()), end_date: tDate(addMinutes(start(), 240)) },
      ]);
    });

    it('keeps the before-end offset exactly as in cli.txt: end 03:14 -> 05:14 moves before end 02:14 -> 04:14', async () => {
      const day = dayAt(221, '01:14');
      const created = await createLease({
        name: 'cli-lease',
        start_date: day,
        end_date: addMinutes(day, 120),
        reservations: [hostsWith('ctpool', 'upd')],
      });
      expect(times(created).before_end_lease).toBe(tDate(addMinutes(day, 60)));
      const response = await client.put(`/v1/leases/${created.id}`, { end_date: addMinutes(day, 240) });
      expect(response.status, describeBody(response)).toBe(200);
      expect(times(response.body.lease)).toEqual({
        start_lease: tDate(day),
        end_lease: tDate(addMinutes(day, 240)),
        before_end_lease: tDate(addMinutes(day, 180)),
      });
    });

    it('PUT only a name: 200 with the new name, dates unchanged', async () => {
      const current = await showLease(lease.id);
      const response = await client.put(`/v1/leases/${lease.id}`, { name: 'ct-upd-renamed' });
      expect(response.status, describeBody(response)).toBe(200);
      expect(response.body.lease).toEqual({ ...current, name: 'ct-upd-renamed', updated_at: expect.stringMatching(TIMESTAMP) });
      expect(await showLease(lease.id)).toEqual(response.body.lease);
    });

    it('PUT {}, only unknown keys, only nulls: 400 No data to update (as upstream for hosts), nothing written', async () => {
      const current = await showLease(lease.id);
      for (const body of [
        {},
        { bogus: 1 },
        { name: null, end_date: null },
        { reservations: [] },
        { reservations: [{ id: lease.reservations[0]?.id }] },
      ]) {
        await rejected(() => client.put(`/v1/leases/${lease.id}`, body), 400, 'No data to update');
      }
      expect(await showLease(lease.id)).toEqual(current);
    });

    it('PUT a reservation with "max": 2: 200 and a second free host is taken (#37)', async () => {
      const reservationId = lease.reservations[0]?.id as string;
      const response = await client.put(`/v1/leases/${lease.id}`, { reservations: [{ id: reservationId, max: 2 }] });
      expect(response.status, describeBody(response)).toBe(200);
      expect(response.body.lease.reservations).toEqual([expect.objectContaining({ id: reservationId, min: 1, max: 2 })]);
      const allocation = await client.get(`/v1/os-hosts/allocations?reservation_id=${reservationId}`);
      const held = allocation.body.allocations
        .filter((a: { reservations: unknown[] }) => a.reservations.length > 0)
        .map((a: { resource_id: string }) => a.resource_id);
      expect([...held].sort()).toEqual([...hostIds].sort());
    });

    it('PUT a reservation needing more hosts than exist: 409, lease unchanged', async () => {
      const current = await showLease(lease.id);
      const reservationId = lease.reservations[0]?.id as string;
      await rejected(
        () => client.put(`/v1/leases/${lease.id}`, { reservations: [{ id: reservationId, min: 3, max: 3 }] }),
        409,
        /^Not enough hosts available/,
      );
      expect(await showLease(lease.id)).toEqual(current);
    });

    it('PUT a reservation without its id: 400 Missing parameter reservation ID', async () => {
      await rejected(() => client.put(`/v1/leases/${lease.id}`, { reservations: [{ max: 2 }] }), 400, 'Missing parameter reservation ID');
    });

    it('PUT a reservation naming its own resource_type: 200 (allowed since upstream bug 1957761)', async () => {
      const reservationId = lease.reservations[0]?.id as string;
      const response = await client.put(`/v1/leases/${lease.id}`, {
        reservations: [{ id: reservationId, resource_type: 'physical:host' }],
      });
      expect(response.status, describeBody(response)).toBe(200);
    });

    it('PUT a reservation with another resource_type: 409 resource_type cannot be updated (upstream CantUpdateParameter)', async () => {
      const current = await showLease(lease.id);
      const reservationId = lease.reservations[0]?.id as string;
      await rejected(
        () => client.put(`/v1/leases/${lease.id}`, { reservations: [{ id: reservationId, resource_type: 'virtual:instance' }] }),
        409,
        'resource_type cannot be updated',
      );
      expect(await showLease(lease.id)).toEqual(current);
    });

    it('PUT an unknown reservation id: 400 naming it', async () => {
      await rejected(
        () => client.put(`/v1/leases/${lease.id}`, { reservations: [{ id: 'ct-no-such-reservation', max: 2 }] }),
        400,
        'Please enter valid reservation IDs. Invalid reservation IDs are: ct-no-such-reservation',
      );
    });

    it('PUT a start_date in the past: 400', async () => {
      await rejected(
        () => client.put(`/v1/leases/${lease.id}`, { start_date: '2020-01-01 00:00' }),
        400,
        'Start date must be later than current date',
      );
    });

    it('PUT an end_date before the start: 400', async () => {
      await rejected(
        () => client.put(`/v1/leases/${lease.id}`, { end_date: addMinutes(start(), -60) }),
        400,
        'End date must be later than current and start date',
      );
    });

    it('PUT a before_end_date outside the lease: 400 and the lease is unchanged (upstream 403 + ERROR)', async () => {
      const current = await showLease(lease.id);
      await rejected(
        () => client.put(`/v1/leases/${lease.id}`, { before_end_date: addMinutes(start(), -10) }),
        400,
        /^Datetime is out of lease limits/,
      );
      expect(await showLease(lease.id)).toEqual(current);
    });

    it('PUT on an unknown lease: 404', async () => {
      const id = '00000000-0000-0000-0000-000000000000';
      await rejected(() => client.put(`/v1/leases/${id}`, { name: 'x' }), 404, `Object with {'lease_id': '${id}'} not found`);
    });

    it('DELETE of an unknown lease: 404 (#47)', async () => {
      const id = '00000000-0000-0000-0000-000000000001';
      await rejected(() => client.delete(`/v1/leases/${id}`), 404, `Object with {'lease_id': '${id}'} not found`);
    });
  });

  describe('extra capabilities used by reservations', () => {
    const start = () => dayAt(270, '10:00');

    it('refuses to change a capability that a future reservation on the host asks for: 409', async () => {
      const capHost = await registerHost({ name: 'ct-cap-1', ctcap: 'v1' });
      await createLease({
        name: 'ct-cap-lease-1',
        start_date: start(),
        end_date: addMinutes(start(), 60),
        reservations: [hostsWith('ctcap', 'v1')],
      });
      await rejected(() => client.put(`/v1/os-hosts/${capHost.id}`, { ctcap: 'v2' }), 409, /ctcap/);
      // other capabilities of the host can still change
      const other = await client.put(`/v1/os-hosts/${capHost.id}`, { ctother: 'x' });
      expect(other.status, describeBody(other)).toBe(200);
    });

    it('also when the reservation started asking for it through a lease update (upstream checks current resource_properties)', async () => {
      const capHost = await registerHost({ name: 'ct-cap-2', ctcap2: 'v1' });
      const lease = await createLease({
        name: 'ct-cap-lease-2',
        start_date: addMinutes(start(), 120),
        end_date: addMinutes(start(), 180),
        reservations: [pinnedHost('ct-cap-2')],
      });
      const reservationId = lease.reservations[0].id;
      const updated = await client.put(`/v1/leases/${lease.id}`, {
        reservations: [{ id: reservationId, resource_properties: JSON.stringify(['==', '$ctcap2', 'v1']) }],
      });
      expect(updated.status, describeBody(updated)).toBe(200);
      expect(updated.body.lease.reservations[0].resource_properties).toBe('["==","$ctcap2","v1"]');
      const held = await client.get(`/v1/os-hosts/${capHost.id}/allocation`);
      expect(held.body.allocation.reservations.map((r: { id: string }) => r.id)).toEqual([reservationId]);
      // the reservation now depends on ctcap2 of this host: changing it would silently break the reservation
      await rejected(() => client.put(`/v1/os-hosts/${capHost.id}`, { ctcap2: 'v2' }), 409, /ctcap2/);
    });
  });

  describe('allocations', () => {
    const ids: Record<string, string> = {};
    const leases: Record<string, { id: string; reservations: { id: string }[] }> = {};
    const start = () => dayAt(250, '10:00');

    beforeAll(async () => {
      ids.a = (await registerHost({ name: 'ct-alloc-a' })).id;
      ids.b = (await registerHost({ name: 'ct-alloc-b' })).id;
      leases.a = await createLease({
        name: 'ct-alloc-a',
        start_date: start(),
        end_date: addMinutes(start(), 60),
        reservations: [pinnedHost('ct-alloc-a')],
      });
      leases.b = await createLease({
        name: 'ct-alloc-b',
        start_date: start(),
        end_date: addMinutes(start(), 90),
        reservations: [pinnedHost('ct-alloc-b')],
      });
    });

    const row = (which: 'a' | 'b') => ({
      id: leases[which]?.reservations[0]?.id,
      lease_id: leases[which]?.id,
      start_date: tDate(start()),
      end_date: tDate(addMinutes(start(), which === 'a' ? 60 : 90)),
    });

    const allocations = async (query = '') => {
      const response = await client.get(`/v1/os-hosts/allocations${query}`);
      expect(response.status, describeBody(response)).toBe(200);
      expect(Object.keys(response.body)).toEqual(['allocations']);
      return response.body.allocations as { resource_id: string; reservations: Record<string, unknown>[] }[];
    };

    it('lists every registered host once with its reservations (#38)', async () => {
      const all = await allocations();
      const hosts = (await client.get('/v1/os-hosts')).body.hosts.map((h: { id: string }) => h.id);
      expect(all.map((a) => a.resource_id).sort()).toEqual([...hosts].sort());
      for (const entry of all) {
        expect(Object.keys(entry)).toEqual(['resource_id', 'reservations']);
        for (const reservation of entry.reservations) {
          expect(Object.keys(reservation)).toEqual(['id', 'lease_id', 'start_date', 'end_date']);
          expect(reservation.start_date).toMatch(T_DATE);
          expect(reservation.end_date).toMatch(T_DATE);
        }
      }
      expect(all.find((a) => a.resource_id === ids.a)?.reservations).toEqual([row('a')]);
      expect(all.find((a) => a.resource_id === ids.b)?.reservations).toEqual([row('b')]);
    });

    it("?lease_id= keeps only that lease's reservations, still listing every host (#39)", async () => {
      const filtered = await allocations(`?lease_id=${leases.a?.id}`);
      expect(filtered.find((a) => a.resource_id === ids.a)?.reservations).toEqual([row('a')]);
      expect(filtered.filter((a) => a.resource_id !== ids.a).every((a) => a.reservations.length === 0)).toBe(true);
      expect(filtered.length).toBe((await allocations()).length);
    });

    it('?reservation_id= keeps only that reservation', async () => {
      const filtered = await allocations(`?reservation_id=${leases.b?.reservations[0]?.id}`);
      expect(filtered.find((a) => a.resource_id === ids.b)?.reservations).toEqual([row('b')]);
      expect(filtered.filter((a) => a.resource_id !== ids.b).every((a) => a.reservations.length === 0)).toBe(true);
    });

    it('GET /v1/os-hosts/{id}/allocation shows one host (#40); 404 for an unknown host', async () => {
      const response = await client.get(`/v1/os-hosts/${ids.a}/allocation`);
      expect(response.status, describeBody(response)).toBe(200);
      expect(response.body).toEqual({ allocation: { resource_id: ids.a, reservations: [row('a')] } });
      const unknown = await client.get('/v1/os-hosts/9999/allocation');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual(blazarError(404, "Object with {'host_id': '9999'} not found"));
    });
  });

  describe('cleaning time 0 (default)', () => {
    it('accepts back-to-back leases on one host', async () => {
      await registerHost({ name: 'ct-b2b-1' });
      const lease = (name: string, from: string, to: string) => ({
        name,
        start_date: dayAt(260, from),
        end_date: dayAt(260, to),
        reservations: [pinnedHost('ct-b2b-1')],
      });
      await createLease(lease('ct-b2b-a', '10:00', '11:00'));
      await createLease(lease('ct-b2b-b', '11:00', '12:00'));
      await createLease(lease('ct-b2b-c', '09:00', '10:00'));
      await rejected(() => client.post('/v1/leases', lease('ct-b2b-d', '10:59', '11:01')), 409, /^Not enough hosts available/);
    });
  });
});

describe('API contract with LEASEHOLD_CLEANING_TIME_MINUTES=30', () => {
  let system: RunningSystem;
  let client: Client;
  const { rejected, registerHost, createLease } = bind(
    () => system,
    () => client,
  );

  beforeAll(async () => {
    system = await startSystem({ env: { LEASEHOLD_CLEANING_TIME_MINUTES: '30' } });
    client = api(system.url);
    await registerHost({ name: 'clean-1' });
  });

  afterAll(async () => {
    await system?.stop();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-6000)}`);
  });

  const lease = (name: string, from: string, to: string) => ({
    name,
    start_date: dayAt(30, from),
    end_date: dayAt(30, to),
    reservations: [hostReservation()],
  });

  it('keeps 30 minutes free after a lease on its host', async () => {
    await createLease(lease('clean-a', '10:00', '11:00'));
    await rejected(
      () => client.post('/v1/leases', lease('clean-b', '11:00', '12:00')),
      409,
      /^Not enough hosts available: 1 reservable host matches the requested properties and 0 of them are free/,
    );
    await createLease(lease('clean-c', '11:30', '12:30'));
  });

  it('keeps 30 minutes free before a lease on its host', async () => {
    await rejected(() => client.post('/v1/leases', lease('clean-d', '08:00', '09:45')), 409, /^Not enough hosts available/);
    await createLease(lease('clean-e', '08:00', '09:30'));
  });
});
