/**
 * virtual:floatingip reservations through HTTP against the running system: addresses registered
 * with POST /v1/floatingips, reserved by amount and by name (IPv6 in any spelling), never in two
 * reservations whose windows (widened by the cleaning time) overlap; update rules before and after
 * the start; the reactor creating and releasing the addresses; a registered address cannot be
 * deleted while reserved. Every refused write is also checked to leave the ledger as it was.
 *
 * Each test uses its own network or its own day, so tests do not see each other's bookings.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FLOATINGIP_KEYS, FLOATINGIP_RESERVATION_KEYS, TIMESTAMP, UUID, addMinutes, ledgerEvents, tDate } from '../helpers/api-fixtures.js';
import { api, blazarDate, floatingIpReservation } from '../helpers/http.js';
import { type Client, blazarError, describeBody, leaseClient } from '../helpers/lease-client.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

/** `2033-03-DD HH:MM`: tests sharing a network book their own day. */
const on = (day: number, time: string): string => `2033-03-${String(day).padStart(2, '0')} ${time}`;

const NET_A = '3f0b6a52-1c1e-4d7e-9a43-0d1f6e2b7a01';
const NET_B = '3f0b6a52-1c1e-4d7e-9a43-0d1f6e2b7a02';
const NET_V6 = '3f0b6a52-1c1e-4d7e-9a43-0d1f6e2b7a06';
const NET_C = '3f0b6a52-1c1e-4d7e-9a43-0d1f6e2b7a0c';
const NET_D = '3f0b6a52-1c1e-4d7e-9a43-0d1f6e2b7a0d';
const NET_E = '3f0b6a52-1c1e-4d7e-9a43-0d1f6e2b7a0e';
const NET_NONE = '3f0b6a52-1c1e-4d7e-9a43-0d1f6e2b7aff';

const MAX_AMOUNT_MESSAGE = 'Malformed parameter amount (must be between 1 and 2147483647)';

const shortage = (registered: number, free: number, requested: number): string =>
  `Not enough floating IPs available: ${registered} registered on the network, ${free} free for the whole lease, ${requested} requested`;
const busy = (address: string): string => `Not enough floating IPs available: ${address} already reserved for this period`;
const notRegistered = (address: string, networkId: string): string =>
  `Floating IP ${address} is not a reservable floating IP of network ${networkId}`;

/** Helpers bound to one running system. */
const bind = (system: () => RunningSystem, client: () => Client) => {
  /** Floating IP ids by address, and back. */
  const fipIds: Record<string, string> = {};
  const addresses: Record<string, string> = {};

  const { rejected, createLease, refusedLease, showLease, updateLease, refusedUpdate } = leaseClient(system, client);

  const register = async (networkId: string, address: string): Promise<any> => {
    const response = await client().post('/v1/floatingips', { floating_network_id: networkId, floating_ip_address: address });
    expect(response.status, describeBody(response)).toBe(201);
    const fip = response.body.floatingip;
    fipIds[fip.floating_ip_address] = fip.id;
    addresses[fip.id] = fip.floating_ip_address;
    return fip;
  };

  /** Addresses held by the reservation, sorted, from GET /v1/floatingips/allocations. */
  const addressesOf = async (reservationId: string): Promise<string[]> => {
    const response = await client().get(`/v1/floatingips/allocations?reservation_id=${reservationId}`);
    expect(response.status, describeBody(response)).toBe(200);
    return response.body.allocations
      .filter((a: { reservations: unknown[] }) => a.reservations.length > 0)
      .map((a: { resource_id: string }) => addresses[a.resource_id] ?? `unknown floating IP ${a.resource_id}`)
      .sort();
  };

  return { fipIds, rejected, register, createLease, refusedLease, showLease, updateLease, refusedUpdate, addressesOf };
};

describe('floating IP reservations (api + projector + reactor, default configuration)', () => {
  let system: RunningSystem;
  let client: Client;
  const { fipIds, rejected, register, createLease, refusedLease, showLease, updateLease, refusedUpdate, addressesOf } = bind(
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

  it('POST /v1/floatingips registers reservable addresses; an IPv6 address is kept in its canonical form', async () => {
    const first = await register(NET_A, '172.24.4.10');
    expect(Object.keys(first)).toEqual(FLOATINGIP_KEYS);
    expect(first).toEqual({
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: null,
      id: expect.stringMatching(UUID),
      floating_network_id: NET_A,
      subnet_id: null,
      floating_ip_address: '172.24.4.10',
      reservable: true,
    });
    for (const address of ['172.24.4.11', '172.24.4.12']) await register(NET_A, address);
    await register(NET_B, '172.24.4.20');
    expect((await register(NET_V6, '2001:DB8:0:0:0:0:0:A')).floating_ip_address).toBe('2001:db8::a');
    await register(NET_V6, '2001:db8::b');
    for (const address of ['198.51.100.1', '198.51.100.2']) await register(NET_C, address);
    for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) await register(NET_D, address);
    await register(NET_E, '203.0.113.50');
    // the same address spelt otherwise is the same address
    const id = fipIds['2001:db8::a'] as string;
    await rejected(
      () => client.post('/v1/floatingips', { floating_network_id: NET_V6, floating_ip_address: '2001:db8::A' }),
      409,
      `Floating IP 2001:db8::a on network ${NET_V6} is already registered with id ${id}`,
    );
  });

  describe('create, show, list', () => {
    let lease: any;

    it("POST: 201, the reservation with exactly upstream's floating-IP fields in their order; required addresses first", async () => {
      const start = on(1, '10:00');
      const end = on(1, '12:00');
      lease = await createLease('fip-1', start, end, [floatingIpReservation(NET_A, 2, ['172.24.4.12'])]);
      const [reservation] = lease.reservations;
      expect(Object.keys(reservation)).toEqual(FLOATINGIP_RESERVATION_KEYS);
      expect(reservation).toEqual({
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.toSatisfy((v: unknown) => v === null || (typeof v === 'string' && TIMESTAMP.test(v)), 'null or a timestamp'),
        id: expect.stringMatching(UUID),
        lease_id: lease.id,
        resource_id: expect.stringMatching(UUID),
        resource_type: 'virtual:floatingip',
        status: 'pending',
        missing_resources: false,
        resources_changed: false,
        network_id: NET_A,
        amount: 2,
        required_floatingips: ['172.24.4.12'],
        end_action: 'release_addresses',
      });
      expect(await addressesOf(reservation.id)).toEqual(['172.24.4.10', '172.24.4.12']);
      const one = await client.get(`/v1/floatingips/${fipIds['172.24.4.12']}/allocation`);
      expect(one.status, describeBody(one)).toBe(200);
      expect(one.body).toEqual({
        allocation: {
          resource_id: fipIds['172.24.4.12'],
          reservations: [{ id: reservation.id, lease_id: lease.id, start_date: tDate(start), end_date: tDate(end) }],
        },
      });
    });

    it('GET shows the same lease (fields in the same order); GET /v1/leases lists it', async () => {
      const shown = await showLease(lease.id);
      expect(shown).toEqual(lease);
      expect(Object.keys(shown.reservations[0])).toEqual(FLOATINGIP_RESERVATION_KEYS);
      const listed = await client.get('/v1/leases');
      expect(listed.body.leases.find((l: { id: string }) => l.id === lease.id)).toEqual(lease);
    });

    it('without required_floatingips: shown as []; addresses never reserved before are preferred', async () => {
      const other = await createLease('fip-2', on(2, '10:00'), on(2, '12:00'), [floatingIpReservation(NET_A, 1)]);
      expect(other.reservations[0]).toMatchObject({ network_id: NET_A, amount: 1, required_floatingips: [] });
      expect(await addressesOf(other.reservations[0].id)).toEqual(['172.24.4.11']);
    });

    it('the allocations list has one entry per registered address', async () => {
      const response = await client.get('/v1/floatingips/allocations');
      expect(response.status).toBe(200);
      expect(response.body.allocations.map((a: { resource_id: string }) => a.resource_id).sort()).toEqual(Object.values(fipIds).sort());
      const entry = response.body.allocations.find((a: { resource_id: string }) => a.resource_id === fipIds['172.24.4.10']);
      expect(entry.reservations).toEqual([
        { id: lease.reservations[0].id, lease_id: lease.id, start_date: tDate(on(1, '10:00')), end_date: tDate(on(1, '12:00')) },
      ]);
    });
  });

  describe('required_floatingips in IPv6, written two ways', () => {
    it('reserved as "2001:0db8::000a", shown canonical; "2001:db8:0:0::A" at an overlapping time is the same address: 409', async () => {
      const lease = await createLease('fip-v6', on(3, '10:00'), on(3, '12:00'), [floatingIpReservation(NET_V6, 1, ['2001:0db8::000a'])]);
      expect(lease.reservations[0].required_floatingips).toEqual(['2001:db8::a']);
      expect(await addressesOf(lease.reservations[0].id)).toEqual(['2001:db8::a']);
      await refusedLease(
        'fip-v6-again',
        on(3, '11:00'),
        on(3, '13:00'),
        [floatingIpReservation(NET_V6, 1, ['2001:db8:0:0::A'])],
        409,
        busy('2001:db8::a'),
      );
      // the other address is still free then
      const other = await createLease('fip-v6-other', on(3, '11:00'), on(3, '13:00'), [floatingIpReservation(NET_V6, 1)]);
      expect(await addressesOf(other.reservations[0].id)).toEqual(['2001:db8::b']);
      const later = await createLease('fip-v6-later', on(3, '12:00'), on(3, '13:00'), [floatingIpReservation(NET_V6, 1, ['2001:DB8::A'])]);
      expect(later.reservations[0].required_floatingips).toEqual(['2001:db8::a']);
    });

    it('the same address twice, in two spellings: 400', async () => {
      await refusedLease(
        'fip-v6-twice',
        on(4, '10:00'),
        on(4, '12:00'),
        [floatingIpReservation(NET_V6, 2, ['2001:db8::a', '2001:DB8:0::0:A'])],
        400,
        'Malformed parameter required_floatingips: an address is repeated',
      );
    });
  });

  describe('an address is never in two reservations at overlapping times', () => {
    it('all addresses taken 10:00-12:00: 409 over it, accepted right before and after', async () => {
      const full = await createLease('fip-c-full', on(5, '10:00'), on(5, '12:00'), [floatingIpReservation(NET_C, 2)]);
      expect(await addressesOf(full.reservations[0].id)).toEqual(['198.51.100.1', '198.51.100.2']);
      await refusedLease('fip-c-overlap', on(5, '11:00'), on(5, '13:00'), [floatingIpReservation(NET_C, 1)], 409, shortage(2, 0, 1));
      await refusedLease(
        'fip-c-inside',
        on(5, '10:30'),
        on(5, '10:45'),
        [floatingIpReservation(NET_C, 1, ['198.51.100.2'])],
        409,
        busy('198.51.100.2'),
      );
      const after = await createLease('fip-c-after', on(5, '12:00'), on(5, '14:00'), [floatingIpReservation(NET_C, 2)]);
      const before = await createLease('fip-c-before', on(5, '09:00'), on(5, '10:00'), [floatingIpReservation(NET_C, 1, ['198.51.100.1'])]);
      expect(await addressesOf(after.reservations[0].id)).toEqual(['198.51.100.1', '198.51.100.2']);
      expect(await addressesOf(before.reservations[0].id)).toEqual(['198.51.100.1']);
    });

    it('two reservations of one lease never take the same address', async () => {
      const lease = await createLease('fip-c-two', on(6, '10:00'), on(6, '12:00'), [
        floatingIpReservation(NET_C, 1),
        floatingIpReservation(NET_C, 1),
      ]);
      const [a, b] = lease.reservations.map((r: { id: string }) => r.id);
      expect([...(await addressesOf(a)), ...(await addressesOf(b))].sort()).toEqual(['198.51.100.1', '198.51.100.2']);
      await refusedLease(
        'fip-c-three',
        on(7, '10:00'),
        on(7, '12:00'),
        [1, 1, 1].map((amount) => floatingIpReservation(NET_C, amount)),
        409,
        shortage(2, 0, 1),
      );
      // the first reservation takes the lowest address
      await refusedLease(
        'fip-c-taken',
        on(7, '10:00'),
        on(7, '12:00'),
        [floatingIpReservation(NET_C, 1), floatingIpReservation(NET_C, 1, ['198.51.100.1'])],
        409,
        busy('198.51.100.1'),
      );
    });
  });

  describe('refused requests, nothing written', () => {
    const when = [on(8, '10:00'), on(8, '12:00')] as const;
    const refuse = (reservation: Record<string, unknown>, status: number, message: string) =>
      refusedLease('fip-bad', ...when, [reservation], status, message);

    it('missing or malformed parameters: 400', async () => {
      await refuse({ resource_type: 'virtual:floatingip', amount: 1 }, 400, 'Missing parameter network_id');
      await refuse({ resource_type: 'virtual:floatingip', network_id: NET_A }, 400, 'Missing parameter amount');
      await refuse({ ...floatingIpReservation(NET_A, 1), amount: 0 }, 400, MAX_AMOUNT_MESSAGE);
      await refuse({ ...floatingIpReservation(NET_A, 1), amount: 'two' }, 400, 'Malformed parameter amount');
      await refuse({ ...floatingIpReservation(NET_A, 1), network_id: 7 }, 400, 'Malformed parameter network_id');
      await refuse({ ...floatingIpReservation(NET_A, 1), network_id: ' ' }, 400, 'Malformed parameter network_id (must be a network UUID)');
      await refuse(
        { ...floatingIpReservation(NET_A, 1), network_id: 'net-a' },
        400,
        'Malformed parameter network_id (must be a network UUID)',
      );
      await refuse(
        { ...floatingIpReservation(NET_A, 1), required_floatingips: '172.24.4.10' },
        400,
        'Malformed parameter required_floatingips',
      );
      await refuse({ ...floatingIpReservation(NET_A, 1), required_floatingips: [1] }, 400, 'Malformed parameter required_floatingips');
      await refuse(
        floatingIpReservation(NET_A, 1, ['not-an-ip']),
        400,
        'Malformed parameter required_floatingips: not-an-ip is not an IP address',
      );
      // an IPv6 address with a zone id is no floating IP
      await refuse(
        floatingIpReservation(NET_V6, 1, ['fe80::1%eth0']),
        400,
        'Malformed parameter required_floatingips: fe80::1%eth0 is not an IP address',
      );
      await refuse(
        floatingIpReservation(NET_A, 1, ['172.24.4.10', '172.24.4.11']),
        400,
        'Invalid input for required_floatingips: 2 addresses required but amount is 1',
      );
      await refuse(
        floatingIpReservation(NET_A, 2, ['172.24.4.10', '172.24.4.10']),
        400,
        'Malformed parameter required_floatingips: an address is repeated',
      );
    });

    it('a required address not registered on that network: 400', async () => {
      await refuse(floatingIpReservation(NET_A, 1, ['172.24.4.99']), 400, notRegistered('172.24.4.99', NET_A));
      // registered, but on another network
      await refuse(floatingIpReservation(NET_A, 1, ['172.24.4.20']), 400, notRegistered('172.24.4.20', NET_A));
      await refuse(floatingIpReservation(NET_NONE, 1, ['172.24.4.10']), 400, notRegistered('172.24.4.10', NET_NONE));
    });

    it('more addresses than the network has free: 409 with the counts', async () => {
      await refuse(floatingIpReservation(NET_A, 4), 409, shortage(3, 3, 4));
      await refuse(floatingIpReservation(NET_NONE, 1), 409, shortage(0, 0, 1));
    });
  });

  describe('update before the start', () => {
    let lease: any;
    let rid: string;

    it('amount up and down (required addresses kept); required_floatingips cleared with []', async () => {
      lease = await createLease('fip-upd', on(9, '10:00'), on(9, '12:00'), [floatingIpReservation(NET_A, 2, ['172.24.4.12'])]);
      rid = lease.reservations[0].id;
      expect(await addressesOf(rid)).toEqual(['172.24.4.10', '172.24.4.12']);

      const more = await updateLease(lease.id, { reservations: [{ id: rid, amount: 3 }] });
      expect(more.reservations[0]).toMatchObject({ id: rid, amount: 3, required_floatingips: ['172.24.4.12'], status: 'pending' });
      expect(await addressesOf(rid)).toEqual(['172.24.4.10', '172.24.4.11', '172.24.4.12']);

      const fewer = await updateLease(lease.id, { reservations: [{ id: rid, amount: 1 }] });
      expect(fewer.reservations[0]).toMatchObject({ amount: 1, required_floatingips: ['172.24.4.12'] });
      expect(await addressesOf(rid)).toEqual(['172.24.4.12']);

      const cleared = await updateLease(lease.id, { reservations: [{ id: rid, required_floatingips: [], network_id: NET_A }] });
      expect(cleared.reservations[0]).toMatchObject({ amount: 1, network_id: NET_A, required_floatingips: [] });
      expect(Object.keys(cleared.reservations[0])).toEqual(FLOATINGIP_RESERVATION_KEYS);
      expect(await addressesOf(rid)).toEqual(['172.24.4.12']);
      expect(await showLease(lease.id)).toEqual(cleared);
    });

    it('new lease dates move the booking', async () => {
      await updateLease(lease.id, { end_date: on(9, '13:00') });
      const one = await client.get(`/v1/floatingips/${fipIds['172.24.4.12']}/allocation?reservation_id=${rid}`);
      expect(one.body.allocation.reservations).toEqual([
        { id: rid, lease_id: lease.id, start_date: tDate(on(9, '10:00')), end_date: tDate(on(9, '13:00')) },
      ]);
    });

    it('new dates that overlap another reservation of its address: a pending reservation moves to a free one', async () => {
      const moving = await createLease('fip-move', on(11, '10:00'), on(11, '12:00'), [floatingIpReservation(NET_A, 1)]);
      const movingId = moving.reservations[0].id;
      expect(await addressesOf(movingId)).toEqual(['172.24.4.10']);
      await createLease('fip-move-next', on(11, '12:00'), on(11, '14:00'), [floatingIpReservation(NET_A, 1, ['172.24.4.10'])]);
      await updateLease(moving.id, { end_date: on(11, '13:00') });
      expect(await addressesOf(movingId)).toEqual(['172.24.4.11']);
      // unless it requires that address
      const pinned = await createLease('fip-pinned', on(12, '10:00'), on(12, '12:00'), [floatingIpReservation(NET_A, 1, ['172.24.4.10'])]);
      await createLease('fip-pinned-next', on(12, '12:00'), on(12, '14:00'), [floatingIpReservation(NET_A, 1, ['172.24.4.10'])]);
      await refusedUpdate(pinned.id, { end_date: on(12, '13:00') }, 409, busy('172.24.4.10'));
    });

    it("network_id is immutable and required_floatingips can only be cleared: 400; other types' fields 400; a shortage 409", async () => {
      const before = await showLease(lease.id);
      await refusedUpdate(lease.id, { reservations: [{ id: rid, network_id: NET_B }] }, 400, 'network_id cannot be updated');
      await refusedUpdate(
        lease.id,
        { reservations: [{ id: rid, required_floatingips: ['172.24.4.12'] }] },
        400,
        'required_floatingips can only be cleared (set to [])',
      );
      for (const [field, value] of [
        ['vcpus', 1],
        ['affinity', null],
        ['flavor_id', 'x'],
        ['resource_properties', ''],
        ['min', 1],
        ['before_end', 'default'],
      ] as const) {
        await refusedUpdate(
          lease.id,
          { reservations: [{ id: rid, [field]: value }] },
          400,
          `Parameter ${field} cannot be set on a virtual:floatingip reservation`,
        );
      }
      await refusedUpdate(lease.id, { reservations: [{ id: rid, amount: 0 }] }, 400, MAX_AMOUNT_MESSAGE);
      await refusedUpdate(
        lease.id,
        { reservations: [{ id: rid, resource_type: 'virtual:instance' }] },
        409,
        'resource_type cannot be updated',
      );
      await refusedUpdate(lease.id, { reservations: [{ id: rid, amount: 4 }] }, 409, shortage(3, 3, 4));
      expect(await showLease(lease.id)).toEqual(before);

      const two = await createLease('fip-upd-2', on(13, '10:00'), on(13, '12:00'), [
        floatingIpReservation(NET_A, 2, ['172.24.4.10', '172.24.4.11']),
      ]);
      await refusedUpdate(
        two.id,
        { reservations: [{ id: two.reservations[0].id, amount: 1 }] },
        400,
        'Invalid input for required_floatingips: 2 addresses required but amount is 1',
      );
    });
  });

  describe('a registered address cannot be deleted while reserved', () => {
    it('DELETE /v1/floatingips/{id}: 409 while a lease holds it, 204 once the lease is deleted', async () => {
      const id = fipIds['203.0.113.50'] as string;
      const lease = await createLease('fip-e', on(10, '10:00'), on(10, '12:00'), [floatingIpReservation(NET_E, 1)]);
      await rejected(() => client.delete(`/v1/floatingips/${id}`), 409, `Can't delete floating IP ${id}. The floating IP is reserved.`);
      expect((await client.get(`/v1/floatingips/${id}`)).status).toBe(200);

      expect((await client.delete(`/v1/leases/${lease.id}`)).status).toBe(204);
      expect(await addressesOf(lease.reservations[0].id)).toEqual([]);
      const deleted = await client.delete(`/v1/floatingips/${id}`);
      expect(deleted.status, describeBody(deleted)).toBe(204);
      const gone = await client.get(`/v1/floatingips/${id}`);
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual(blazarError(404, `Floating IP ${id} not found.`));
      await refusedLease('fip-e-gone', on(10, '10:00'), on(10, '12:00'), [floatingIpReservation(NET_E, 1)], 409, shortage(0, 0, 1));
    });
  });

  // last: the reactor acts on this lease while it runs, and refused writes elsewhere compare ledger counts
  describe('an ACTIVE lease (started "now" by the reactor)', () => {
    let lease: any;
    let rid: string;
    const events = () => ledgerEvents(system.dataDir, `lease-${lease.id}`);
    const created = (effects: { operation: string; address: string; already?: boolean }[]) =>
      effects.filter((e) => e.operation === 'floatingip.create' && e.already !== true).map((e) => e.address);

    it("the start creates the reserved address in the lease's project", async () => {
      lease = await createLease('fip-act', 'now', blazarDate(90), [floatingIpReservation(NET_D, 1)]);
      rid = lease.reservations[0].id;
      expect(await addressesOf(rid)).toEqual(['203.0.113.1']);
      const active = await eventually(
        async () => {
          const view = await showLease(lease.id);
          return view.status === 'ACTIVE' ? view : undefined;
        },
        20_000,
        'ACTIVE',
      );
      expect(active.reservations[0]).toMatchObject({ status: 'active', amount: 1 });
      const started = events().find(
        (e) => e.type === 'Reservation.EffectsApplied' && e.data.reservationId === rid && e.data.phase === 'start',
      );
      expect(created(started?.data.effects ?? [])).toEqual(['203.0.113.1']);
    });

    it('amount up: another address at once, created by the reactor (Reservation.UpdateApplied)', async () => {
      const updated = await updateLease(lease.id, { reservations: [{ id: rid, amount: 2 }] });
      expect(updated.reservations[0]).toMatchObject({ amount: 2, status: 'active' });
      expect(await addressesOf(rid)).toEqual(['203.0.113.1', '203.0.113.2']);
      const applied = await eventually(
        async () => events().find((e) => e.type === 'Reservation.UpdateApplied' && e.data.reservationId === rid),
        20_000,
        'Reservation.UpdateApplied',
      );
      expect(created(applied.data.effects)).toEqual(['203.0.113.2']);
      expect(events().filter((e) => e.type === 'Reservation.UpdateFailed')).toEqual([]);
    });

    it('once ACTIVE: amount cannot go below what it holds, network_id and required_floatingips as before: 400; a shortage 409', async () => {
      await refusedUpdate(
        lease.id,
        { reservations: [{ id: rid, amount: 1 }] },
        400,
        'The amount of a started floating IP reservation cannot go below the 2 addresses it holds',
      );
      await refusedUpdate(lease.id, { reservations: [{ id: rid, network_id: NET_A }] }, 400, 'network_id cannot be updated');
      await refusedUpdate(
        lease.id,
        { reservations: [{ id: rid, required_floatingips: ['203.0.113.3'] }] },
        400,
        'required_floatingips can only be cleared (set to [])',
      );
      await refusedUpdate(lease.id, { reservations: [{ id: rid, amount: 4 }] }, 409, shortage(3, 3, 4));
      const id = fipIds['203.0.113.1'] as string;
      await rejected(() => client.delete(`/v1/floatingips/${id}`), 409, `Can't delete floating IP ${id}. The floating IP is reserved.`);
    });

    it('the end cannot move past the next reservation of an address it holds: 409', async () => {
      const end = lease.end_date.slice(0, 16).replace('T', ' ');
      await createLease('fip-act-next', end, addMinutes(end, 60), [floatingIpReservation(NET_D, 1, ['203.0.113.2'])]);
      await refusedUpdate(lease.id, { end_date: addMinutes(end, 30) }, 409, busy('203.0.113.2'));
      expect((await showLease(lease.id)).end_date).toBe(lease.end_date);
    });

    it('DELETE of the ACTIVE lease: its addresses are released by the reactor and free again; then they can be unregistered', async () => {
      expect((await client.delete(`/v1/leases/${lease.id}`)).status).toBe(204);
      expect(await addressesOf(rid)).toEqual([]);
      const ended = await eventually(
        async () => events().find((e) => e.type === 'Reservation.EffectsApplied' && e.data.reservationId === rid && e.data.phase === 'end'),
        20_000,
        'end effects',
      );
      const released = ended.data.effects
        .filter((e: { operation: string }) => e.operation === 'floatingip.delete')
        .map((e: { address: string }) => e.address);
      expect(released.sort()).toEqual(['203.0.113.1', '203.0.113.2']);
      const id = fipIds['203.0.113.1'] as string;
      expect((await client.delete(`/v1/floatingips/${id}`)).status).toBe(204);
      const again = await createLease('fip-act-again', blazarDate(10), blazarDate(60), [floatingIpReservation(NET_D, 2)]);
      expect(await addressesOf(again.reservations[0].id)).toEqual(['203.0.113.2', '203.0.113.3']);
    });
  });
});

describe('floating IP reservations with a 30-minute cleaning time', () => {
  let system: RunningSystem;
  let client: Client;
  const { register, createLease, refusedLease, addressesOf } = bind(
    () => system,
    () => client,
  );
  const NET_K = '3f0b6a52-1c1e-4d7e-9a43-0d1f6e2b7a1c';

  beforeAll(async () => {
    system = await startSystem({ apps: ['api', 'projector'], env: { LEASEHOLD_CLEANING_TIME_MINUTES: '30' } });
    client = api(system.url);
    for (const address of ['192.0.2.10', '192.0.2.11']) await register(NET_K, address);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('all addresses taken 10:00-12:00: the next reservation must keep 30 minutes away on both sides', async () => {
    await createLease('k-full', on(1, '10:00'), on(1, '12:00'), [floatingIpReservation(NET_K, 2)]);
    await refusedLease('k-after', on(1, '12:20'), on(1, '13:00'), [floatingIpReservation(NET_K, 1)], 409, shortage(2, 0, 1));
    await refusedLease('k-before', on(1, '08:00'), on(1, '09:40'), [floatingIpReservation(NET_K, 1)], 409, shortage(2, 0, 1));
    await refusedLease(
      'k-required',
      on(1, '12:10'),
      on(1, '13:00'),
      [floatingIpReservation(NET_K, 1, ['192.0.2.11'])],
      409,
      busy('192.0.2.11'),
    );
    const after = await createLease('k-after-ok', on(1, '12:30'), on(1, '13:00'), [floatingIpReservation(NET_K, 2)]);
    const before = await createLease('k-before-ok', on(1, '08:00'), on(1, '09:30'), [floatingIpReservation(NET_K, 1, ['192.0.2.11'])]);
    expect(await addressesOf(after.reservations[0].id)).toEqual(['192.0.2.10', '192.0.2.11']);
    expect(await addressesOf(before.reservations[0].id)).toEqual(['192.0.2.11']);
  });
});
