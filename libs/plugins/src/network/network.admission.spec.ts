import { describe, expect, it } from 'vitest';
import { REGISTERED_AT, at, withCalendars } from '#application/testing/calendars.fixture.js';
import type { StreamEvent } from '#application/testing/given-events.js';
import { Admissions } from '../admission/admission.registry.js';
import type { WireChanges } from '../reservation-wire.js';
import { patchOf } from '../testing/reservation-patch.fixture.js';
import { networkAdmission } from './network.admission.js';
import type { NetworkReservation } from './network.reservation.js';
import { networkWire } from './network.wire.js';
import { networkStream } from './network-segment.types.js';

const LEASE = { leaseId: 'lease-1', startDate: at(10), endDate: at(18) };

const segment = (networkId: string, segmentId: number, physicalNetwork = 'physnet1', capabilities: Record<string, string> = {}) => ({
  streamId: networkStream(networkId),
  type: 'NetworkSegment.Registered',
  data: { networkId, networkType: 'vlan', physicalNetwork, segmentId, capabilities, registeredAt: REGISTERED_AT },
});

const booked = (networkId: string, reservationId: string, start = 10, end = 18): StreamEvent => ({
  streamId: networkStream(networkId),
  type: 'NetworkSegment.Booked',
  data: { networkId, reservationId, leaseId: `lease-${reservationId}`, startDate: at(start), endDate: at(end), propertyNames: [] },
});

// registered out of order: the choice follows the segments' own order, not the log's
const segments = [
  segment('n102', 102),
  segment('n100', 100, 'physnet1', { fast: 'true' }),
  segment('n101', 101),
  segment('m7', 7, 'physnet2'),
];

const request = (fields: Record<string, string> = {}) =>
  networkWire.request({
    networkName: 'mynet',
    networkDescription: null,
    networkProperties: null,
    resourceProperties: null,
    beforeEnd: null,
    ...fields,
  });

const holding = (networkId = 'n100', segmentId = 100): NetworkReservation => ({
  id: 'r1',
  resourceId: 'resource-r1',
  resourceType: 'network',
  networkName: 'mynet',
  networkDescription: '',
  networkProperties: '',
  resourceProperties: '',
  beforeEnd: 'default',
  allocations: [{ networkId, networkType: 'vlan', physicalNetwork: 'physnet1', segmentId }],
});

const typesOf = (events: readonly { streamId: string; type: string }[]) => events.map((e) => `${e.streamId} ${e.type}`);

describe('network admission', () => {
  it('books the first free segment the queries match, by type, physical network and id, with new ids', async () => {
    await withCalendars(segments, ({ admission, decided }) => {
      const reservation = networkAdmission.admit(
        admission(LEASE),
        request({ networkProperties: '["==", "$physical_network", "physnet1"]' }),
      );
      expect(reservation).toEqual({
        id: 'id-1',
        resourceId: 'id-2',
        resourceType: 'network',
        networkName: 'mynet',
        networkDescription: '',
        networkProperties: '["==", "$physical_network", "physnet1"]',
        resourceProperties: '',
        beforeEnd: 'default',
        allocations: [{ networkId: 'n100', networkType: 'vlan', physicalNetwork: 'physnet1', segmentId: 100 }],
      });
      expect(typesOf(decided())).toEqual(['network-n100 NetworkSegment.Booked']);
    });
  });

  it('matches segment fields and extra capabilities, and books with the capability names it depends on', async () => {
    await withCalendars(segments, ({ admission, decided }) => {
      const bySegment = networkAdmission.admit(admission(LEASE), request({ networkProperties: '[">=", "$segment_id", "101"]' }));
      expect(bySegment.allocations.map((a) => a.segmentId)).toEqual([101]);
      const byCapability = networkAdmission.admit(admission(LEASE), request({ resourceProperties: '["==", "$fast", "true"]' }));
      expect(byCapability.allocations.map((a) => a.networkId)).toEqual(['n100']);
      const onN100 = decided().filter((event) => event.streamId === 'network-n100');
      expect(onN100).toMatchObject([{ type: 'NetworkSegment.Booked', data: { propertyNames: ['fast'] } }]);
      const other = networkAdmission.admit(admission(LEASE), request({ networkProperties: '["==", "$physical_network", "physnet2"]' }));
      expect(other.allocations.map((a) => a.networkId)).toEqual(['m7']);
    });
  });

  it('prefers a never-booked segment, and never takes one booked over the window or within the cleaning time (409)', async () => {
    const query = { networkProperties: '["==", "$physical_network", "physnet1"]' };
    await withCalendars([...segments, booked('n100', 'old', 2, 4), booked('n101', 'other', 17, 20)], ({ admission }) => {
      expect(networkAdmission.admit(admission(LEASE), request(query)).allocations[0]?.networkId).toBe('n102');
      expect(() => networkAdmission.admit(admission(LEASE), request(query))).not.toThrow();
      expect(() => networkAdmission.admit(admission(LEASE), request(query))).toThrow(
        expect.objectContaining({
          code: 'NOT_ENOUGH_NETWORKS',
          kind: 'conflict',
          message: 'Not enough networks available: 3 segments match, 0 free for the whole lease, 1 requested',
        }),
      );
    });
    const cleaning = { cleaningTimeMinutes: 90, allocationRatios: { cpu: 1, ram: 1, disk: 1 } };
    await withCalendars(
      [segment('n1', 1), booked('n1', 'before', 4, 9)],
      ({ admission }) => {
        expect(() => networkAdmission.admit(admission(LEASE), request())).toThrow(expect.objectContaining({ code: 'NOT_ENOUGH_NETWORKS' }));
      },
      cleaning,
    );
  });

  it('refuses malformed queries, an empty or overlong name and a before_end it cannot act on (400)', () => {
    expect(() => request({ networkProperties: '["==", "$segment_id"]' })).toThrow(
      expect.objectContaining({ code: 'MALFORMED_REQUIREMENTS' }),
    );
    expect(() => request({ networkName: ' ' })).toThrow(
      expect.objectContaining({ template: 'Malformed parameter {field:networkName} (must not be empty)' }),
    );
    expect(() => request({ networkName: 'n'.repeat(256) })).toThrow(expect.objectContaining({ code: 'MALFORMED_PARAMETER' }));
    expect(() => request({ networkDescription: 'd'.repeat(256) })).toThrow(expect.objectContaining({ code: 'MALFORMED_PARAMETER' }));
    expect(() => request({ beforeEnd: 'snapshot' })).toThrow(expect.objectContaining({ code: 'MALFORMED_PARAMETER' }));
    expect(request({ beforeEnd: 'notify', networkName: 'n'.repeat(255) })).toMatchObject({ beforeEnd: 'notify' });
  });

  it('keeps its segment on a change while it still qualifies, and trades it for another before the start', async () => {
    await withCalendars([...segments, booked('n100', 'r1'), booked('n101', 'other', 20, 22)], ({ admission, decided }) => {
      const later = { ...LEASE, endDate: at(19) };
      const kept = networkAdmission.readmit(admission(later), holding(), networkWire.change({}), false);
      expect(kept.allocations[0]?.networkId).toBe('n100');
      expect(typesOf(decided())).toEqual(['network-n100 NetworkSegment.BookingMoved']);
      const moved = networkAdmission.readmit(
        admission(later),
        holding(),
        networkWire.change({ networkProperties: '["==", "$segment_id", "102"]' }),
        false,
      );
      expect(moved).toMatchObject({ networkProperties: '["==", "$segment_id", "102"]', allocations: [{ networkId: 'n102' }] });
      expect(typesOf(decided()).sort()).toEqual([
        'network-n100 NetworkSegment.BookingMoved',
        'network-n100 NetworkSegment.BookingReleased',
        'network-n102 NetworkSegment.Booked',
      ]);
    });
  });

  it('once started keeps its segment or refuses the change (409), and keeps its network name and description (400)', async () => {
    await withCalendars([...segments, booked('n100', 'r1'), booked('n100', 'next', 20, 22)], ({ admission, decided }) => {
      const readmit =
        (changes: WireChanges, endHour = 18) =>
        () =>
          networkAdmission.readmit(admission({ ...LEASE, endDate: at(endHour) }), holding(), networkWire.change(changes), true);
      expect(readmit({}, 21)).toThrow(expect.objectContaining({ code: 'NOT_ENOUGH_NETWORKS' }));
      expect(readmit({ networkProperties: '["==", "$segment_id", "102"]' })).toThrow(
        expect.objectContaining({ code: 'NOT_ENOUGH_NETWORKS' }),
      );
      expect(readmit({ networkName: 'renamed' })).toThrow(
        expect.objectContaining({
          code: 'CANT_UPDATE_PARAMETER',
          template: '{field:networkName} of a started network reservation cannot be updated',
        }),
      );
      expect(readmit({ networkDescription: 'new words' })).toThrow(expect.objectContaining({ code: 'CANT_UPDATE_PARAMETER' }));
      expect(decided()).toEqual([]);
      expect(readmit({ beforeEnd: 'notify' }, 19)()).toMatchObject({ beforeEnd: 'notify', allocations: [{ networkId: 'n100' }] });
    });
  });

  it('a patch may only set network fields (400); nothing to heal; release frees its segment', async () => {
    await withCalendars([...segments, booked('n100', 'r1')], ({ admission, decided }) => {
      expect(() => new Admissions().readmit(admission(LEASE), holding(), patchOf('r1', { amount: 2 }), false)).toThrow(
        expect.objectContaining({ code: 'INVALID_PARAMETER', template: 'Parameter {field:amount} cannot be set on a network reservation' }),
      );
      expect(networkAdmission.heal(admission(LEASE), holding(), new Set(['n100']))).toBeNull();
      networkAdmission.release(admission(LEASE), holding());
      expect(typesOf(decided())).toEqual(['network-n100 NetworkSegment.BookingReleased']);
    });
  });
});
