import { describe, expect, it } from 'vitest';
import type { Flavor } from '#domain/index.js';
import { at, flavorAdded, hostRegistered, hostWentDown, slotsBooked, withCalendars } from '#application/testing/calendars.fixture.js';
import { flavorResourceProperties } from './flavor-snapshot.js';
import { buildFlavorInstanceRequest, buildInstanceRequest } from './instance-reservation.request.js';
import { flavorInstanceAdmission, virtualInstanceAdmission } from './instance.admission.js';
import type { FlavorInstanceReservation, VirtualInstanceReservation } from './instance.reservation.js';
import { flavorInstanceWire, virtualInstanceWire } from './instance.wire.js';

const LEASE = { leaseId: 'lease-1', startDate: at(10), endDate: at(18) };
/** Slots of 2 vcpus, 4096 MB, 20 GB: four fit on one 8-vcpu host. */
const SIZE = { vcpus: 2, memoryMb: 4096, diskGb: 20 };
const request = (amount: number, affinity: boolean | null = null) =>
  buildInstanceRequest({ amount, ...SIZE, affinity, resourceProperties: '' });
const instances = (
  allocations: VirtualInstanceReservation['allocations'],
  fields: Partial<VirtualInstanceReservation> = {},
): VirtualInstanceReservation => ({
  id: 'r1',
  resourceId: 'resource-r1',
  resourceType: 'virtual:instance',
  amount: allocations.reduce((sum, a) => sum + a.count, 0),
  ...SIZE,
  affinity: null,
  resourceProperties: '',
  allocations,
  ...fields,
});
const holding = (hostId: string, count: number) => slotsBooked(hostId, 'r1', { count, ...SIZE });
const hosts = [hostRegistered('1'), hostRegistered('2'), hostRegistered('3')];
const typesOf = (events: readonly { streamId: string; type: string }[]) => events.map((e) => `${e.streamId} ${e.type}`);

const small: Flavor = {
  id: 'small',
  name: 'm1.small',
  vcpus: 2,
  ram: 4096,
  disk: 10,
  ephemeral: 10,
  swap: 0,
  rxtxFactor: 1,
  isPublic: true,
  extraSpecs: { 'hw:cpu_policy': 'dedicated' },
};
const secret: Flavor = { ...small, id: 'secret', name: 'm1.secret', isPublic: false };

describe('virtual:instance admission', () => {
  it('packs slots onto the fewest hosts and books them, with new ids', async () => {
    await withCalendars(hosts, ({ admission, decided }) => {
      const reservation = virtualInstanceAdmission.admit(admission(LEASE), request(5));
      expect(reservation).toEqual({
        ...instances([
          { hostId: '1', count: 4 },
          { hostId: '2', count: 1 },
        ]),
        id: 'id-1',
        resourceId: 'id-2',
      });
      expect(typesOf(decided())).toEqual(['host-1 Host.SlotsBooked', 'host-2 Host.SlotsBooked']);
    });
  });

  it('anti-affinity puts each slot on a host of its own, and refuses more slots than hosts (409)', async () => {
    await withCalendars(hosts, ({ admission, decided }) => {
      expect(() => virtualInstanceAdmission.admit(admission(LEASE), request(4, false))).toThrow(
        expect.objectContaining({ code: 'NOT_ENOUGH_HOSTS' }),
      );
      expect(decided()).toEqual([]);
      expect(virtualInstanceAdmission.admit(admission(LEASE), request(3, false)).allocations.map((a) => a.hostId)).toEqual(['1', '2', '3']);
    });
  });

  it('a started reservation may only grow its amount (409 otherwise, before anything is booked)', async () => {
    await withCalendars([...hosts, holding('1', 2)], ({ admission, decided }) => {
      const current = instances([{ hostId: '1', count: 2 }]);
      const grown = virtualInstanceAdmission.readmit(admission(LEASE), current, virtualInstanceWire.change({ amount: 3 }), true);
      expect(grown).toMatchObject({ amount: 3, allocations: [{ hostId: '1', count: 3 }] });
      expect(() => virtualInstanceAdmission.readmit(admission(LEASE), current, virtualInstanceWire.change({ amount: 1 }), true)).toThrow(
        expect.objectContaining({
          code: 'CANT_UPDATE_PARAMETER',
          template: 'The {field:amount} of a started reservation can only grow (from 2)',
        }),
      );
      expect(() =>
        virtualInstanceAdmission.readmit(
          admission(LEASE),
          current,
          virtualInstanceWire.change({ memoryMb: 2048, affinity: { value: true } }),
          true,
        ),
      ).toThrow(
        expect.objectContaining({
          template: 'Only {field:amount} can be changed once the reservation has started (not {field:memoryMb}, {field:affinity})',
        }),
      );
      expect(typesOf(decided())).toEqual(['host-1 Host.SlotsMoved']);
    });
  });

  it('a pending reservation may change its sizes: the slots follow', async () => {
    await withCalendars([...hosts, holding('1', 4)], ({ admission, decided }) => {
      const bigger = virtualInstanceAdmission.readmit(
        admission(LEASE),
        instances([{ hostId: '1', count: 4 }]),
        virtualInstanceWire.change({ vcpus: 4 }),
        false,
      );
      expect(bigger).toMatchObject({
        vcpus: 4,
        allocations: [
          { hostId: '1', count: 2 },
          { hostId: '2', count: 2 },
        ],
      });
      expect(typesOf(decided())).toEqual(['host-1 Host.SlotsMoved', 'host-2 Host.SlotsBooked']);
    });
  });

  it("heals: with affinity the whole reservation moves to one host with room; without, each lost host's slots go elsewhere", async () => {
    const given = [...hosts, holding('1', 2), holding('2', 1), hostWentDown('1')];
    await withCalendars(given, ({ admission, decided }) => {
      const together = instances(
        [
          { hostId: '1', count: 2 },
          { hostId: '2', count: 1 },
        ],
        { affinity: true },
      );
      const healed = virtualInstanceAdmission.heal(admission(LEASE), together, new Set(['1']));
      expect(healed).toEqual({
        reservation: { ...together, allocations: [{ hostId: '2', count: 3 }] },
        replacements: [
          { hostId: '1', by: ['2'] },
          { hostId: '2', by: ['2'] },
        ],
        unhealedHostIds: [],
      });
      expect(typesOf(decided())).toEqual(['host-1 Host.BookingReleased', 'host-2 Host.BookingReleased', 'host-2 Host.SlotsBooked']);
    });
    await withCalendars(given, ({ admission }) => {
      const apart = instances(
        [
          { hostId: '1', count: 2 },
          { hostId: '2', count: 1 },
        ],
        { affinity: false },
      );
      const healed = virtualInstanceAdmission.heal(admission(LEASE), apart, new Set(['1']));
      expect(healed).toEqual({ reservation: apart, replacements: [], unhealedHostIds: ['1'] });
      const anywhere = instances([
        { hostId: '1', count: 2 },
        { hostId: '2', count: 1 },
      ]);
      expect(virtualInstanceAdmission.heal(admission(LEASE), anywhere, new Set(['1']))).toEqual({
        reservation: { ...anywhere, allocations: [{ hostId: '2', count: 3 }] },
        replacements: [{ hostId: '1', by: ['2'] }],
        unhealedHostIds: [],
      });
      expect(virtualInstanceAdmission.heal(admission(LEASE), anywhere, new Set(['3']))).toBeNull();
    });
  });
});

describe('flavor:instance admission', () => {
  const fromFlavor = (flavorId: string, amount = 1) => buildFlavorInstanceRequest(flavorId, amount, null);

  it("takes the flavor's sizes (disk plus ephemeral), its description and extra specs", async () => {
    await withCalendars([...hosts, flavorAdded(small)], ({ admission }) => {
      expect(flavorInstanceAdmission.admit(admission(LEASE), fromFlavor('small', 2))).toEqual({
        id: 'id-1',
        resourceId: 'id-2',
        resourceType: 'flavor:instance',
        amount: 2,
        ...SIZE,
        affinity: null,
        resourceProperties: flavorResourceProperties(small),
        sourceFlavorId: 'small',
        extraSpecs: small.extraSpecs,
        allocations: [{ hostId: '1', count: 2 }],
      });
    });
  });

  it('a private flavor is found by an admin only; for anyone else it does not exist (400), and nothing is booked', async () => {
    await withCalendars([...hosts, flavorAdded(secret)], ({ admission, decided }) => {
      expect(() => flavorInstanceAdmission.admit(admission(LEASE), fromFlavor('secret'))).toThrow(
        expect.objectContaining({ code: 'FLAVOR_NOT_FOUND', message: 'Flavor secret could not be found.' }),
      );
      expect(decided()).toEqual([]);
      expect(flavorInstanceAdmission.admit(admission(LEASE, true), fromFlavor('secret')).sourceFlavorId).toBe('secret');
    });
  });

  it('keeps its flavor (409) and, once started, may only grow', async () => {
    const current: FlavorInstanceReservation = {
      ...instances([{ hostId: '1', count: 2 }]),
      resourceType: 'flavor:instance',
      sourceFlavorId: 'small',
      extraSpecs: {},
    };
    await withCalendars([...hosts, holding('1', 2)], ({ admission }) => {
      expect(() =>
        flavorInstanceAdmission.readmit(admission(LEASE), current, flavorInstanceWire.change({ flavorId: 'large' }), false),
      ).toThrow(
        expect.objectContaining({
          kind: 'conflict',
          template: '{field:flavorId} cannot be updated; make a new reservation for another flavor',
        }),
      );
      expect(
        flavorInstanceAdmission.readmit(admission(LEASE), current, flavorInstanceWire.change({ flavorId: 'small', amount: 1 }), false)
          .amount,
      ).toBe(1);
      expect(() => flavorInstanceAdmission.readmit(admission(LEASE), current, flavorInstanceWire.change({ amount: 1 }), true)).toThrow(
        expect.objectContaining({ code: 'CANT_UPDATE_PARAMETER' }),
      );
    });
  });
});
