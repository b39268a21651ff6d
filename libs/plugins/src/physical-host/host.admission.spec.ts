import { describe, expect, it } from 'vitest';
import { at, hostBooked, hostRegistered, hostWentDown, withCalendars } from '#application/testing/calendars.fixture.js';
import { Admissions } from '../admission/admission.registry.js';
import { patchOf } from '../testing/reservation-patch.fixture.js';
import { buildHostRequest } from './host-reservation.request.js';
import { hostAdmission } from './host.admission.js';
import type { HostReservation } from './host.reservation.js';
import { hostWire } from './host.wire.js';

const LEASE = { leaseId: 'lease-1', startDate: at(10), endDate: at(18) };
const GPU = JSON.stringify(['==', '$gpu', 'true']);
const request = (fields: Partial<Parameters<typeof buildHostRequest>[0]> = {}) =>
  buildHostRequest({ min: 1, max: 1, hypervisorProperties: '', resourceProperties: '', beforeEnd: 'default', ...fields });
const held = (hostIds: readonly string[], fields: Partial<HostReservation> = {}): HostReservation => ({
  id: 'r1',
  resourceId: 'resource-r1',
  resourceType: 'physical:host',
  min: hostIds.length,
  max: hostIds.length,
  hypervisorProperties: '',
  resourceProperties: '',
  beforeEnd: 'default',
  hostIds,
  ...fields,
});
const hosts = [hostRegistered('1'), hostRegistered('2', { gpu: 'true' }), hostRegistered('3', { gpu: 'true' })];
const typesOf = (events: readonly { streamId: string; type: string }[]) => events.map((e) => `${e.streamId} ${e.type}`);

describe('physical:host admission', () => {
  it('admits whole hosts matching the query, books them, and names the reservation with new ids', async () => {
    await withCalendars(hosts, ({ admission, decided }) => {
      const reservation = hostAdmission.admit(admission(LEASE), request({ resourceProperties: GPU, min: 2, max: 2 }));
      expect(reservation).toEqual({ ...held(['2', '3'], { resourceProperties: GPU }), id: 'id-1', resourceId: 'id-2' });
      expect(decided().map((e) => e.data)).toEqual([
        { hostId: '2', reservationId: 'id-1', leaseId: 'lease-1', startDate: at(10), endDate: at(18), propertyNames: ['gpu'] },
        { hostId: '3', reservationId: 'id-1', leaseId: 'lease-1', startDate: at(10), endDate: at(18), propertyNames: ['gpu'] },
      ]);
    });
  });

  it('refuses with 409 when too few matching hosts are free, and books nothing', async () => {
    await withCalendars([...hosts, hostBooked('2', 'other')], ({ admission, decided }) => {
      expect(() => hostAdmission.admit(admission(LEASE), request({ resourceProperties: GPU, min: 2, max: 2 }))).toThrow(
        expect.objectContaining({ code: 'NOT_ENOUGH_HOSTS' }),
      );
      expect(decided()).toEqual([]);
    });
  });

  it('a pending reservation may move: kept hosts are moved, new ones booked, dropped ones released', async () => {
    await withCalendars([...hosts, hostBooked('1', 'r1')], ({ admission, decided }) => {
      const grown = hostAdmission.readmit(
        admission({ ...LEASE, endDate: at(20) }),
        held(['1']),
        hostWire.change({ min: 2, max: 2 }),
        false,
      );
      expect(grown.hostIds).toEqual(['1', '2']);
      expect(typesOf(decided())).toEqual(['host-1 Host.BookingMoved', 'host-2 Host.Booked']);
    });
    await withCalendars([...hosts, hostBooked('1', 'r1')], ({ admission, decided }) => {
      const moved = hostAdmission.readmit(admission(LEASE), held(['1']), hostWire.change({ resourceProperties: GPU }), false);
      expect(moved).toMatchObject({ hostIds: ['2'], resourceProperties: GPU });
      expect(typesOf(decided())).toEqual(['host-1 Host.BookingReleased', 'host-2 Host.Booked']);
    });
  });

  it('a started reservation keeps exactly its hosts, and only while they stay free over the new window (409)', async () => {
    await withCalendars(
      [...hosts, hostBooked('1', 'r1'), hostBooked('1', 'next', { leaseId: 'lease-2', start: 20, end: 22 })],
      ({ admission, decided }) => {
        const longer = hostAdmission.readmit(admission({ ...LEASE, endDate: at(19) }), held(['1']), hostWire.change({ max: 2 }), true);
        expect(longer).toMatchObject({ hostIds: ['1'], max: 2 });
        expect(() => hostAdmission.readmit(admission({ ...LEASE, endDate: at(21) }), held(['1']), undefined, true)).toThrow(
          expect.objectContaining({ code: 'NOT_ENOUGH_HOSTS' }),
        );
        expect(typesOf(decided())).toEqual(['host-1 Host.BookingMoved']);
      },
    );
  });

  it('a patch may only set host fields (400), judged before anything is allocated', async () => {
    await withCalendars([...hosts, hostBooked('1', 'r1')], ({ admission, decided }) => {
      const readmit = () => new Admissions().readmit(admission(LEASE), held(['1']), patchOf('r1', { memoryMb: 1024 }), false);
      expect(readmit).toThrow(
        expect.objectContaining({
          code: 'INVALID_PARAMETER',
          template: 'Parameter {field:memoryMb} cannot be set on a physical:host reservation',
        }),
      );
      expect(decided()).toEqual([]);
    });
  });

  it('heals a down host with a free matching one, keeps what nothing can replace, and ignores reservations on hosts that are up', async () => {
    const given = [...hosts, hostBooked('2', 'r1'), hostBooked('3', 'r1'), hostWentDown('2'), hostWentDown('3')];
    const reservation = held(['2', '3'], { resourceProperties: GPU });
    await withCalendars([...given, hostRegistered('4', { gpu: 'true' })], ({ admission, decided }) => {
      const healing = hostAdmission.heal(admission(LEASE), reservation, new Set(['2', '3']));
      expect(healing).toEqual({
        reservation: { ...reservation, hostIds: ['4', '3'] },
        replacements: [{ hostId: '2', by: ['4'] }],
        unhealedHostIds: ['3'],
      });
      expect(typesOf(decided())).toEqual(['host-2 Host.BookingReleased', 'host-4 Host.Booked']);
    });
    await withCalendars(given, ({ admission }) => {
      expect(hostAdmission.heal(admission(LEASE), reservation, new Set(['1']))).toBeNull();
    });
  });

  it('releases every host it holds', async () => {
    await withCalendars([...hosts, hostBooked('1', 'r1'), hostBooked('2', 'r1')], ({ admission, decided }) => {
      hostAdmission.release(admission(LEASE), held(['1', '2']));
      expect(typesOf(decided())).toEqual(['host-1 Host.BookingReleased', 'host-2 Host.BookingReleased']);
    });
  });
});
