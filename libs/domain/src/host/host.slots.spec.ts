import { describe, expect, it } from 'vitest';
import { foldEvents } from '../shared/decider.js';
import { MINUTE_MS, toMs } from '../shared/interval.js';
import { DeciderSpecification } from '../shared/specification.js';
import { hostDecider } from './host.decide.js';
import type { HostEvent } from './host.events.js';
import type { HostState } from './host.state.js';
import {
  HOST_ID,
  LEASE_ID,
  at,
  bookHost,
  bookSlots,
  hostBooked,
  hostBookingMoved,
  hostBookingReleased,
  hostRegistered,
  hostReservableChanged,
  moveHostBooking,
  moveSlots,
  releaseHostBooking,
  slots,
  slotsBooked,
  slotsMoved,
} from './testing/host.fixtures.js';

// ---------------------------------------------------------------------------------------------
// Fixtures: host 7 with 8 vcpus, 16384 MB and 100 GB (./testing/host.fixtures.ts).
// slots(n) are n slots of 1 vcpu, 1024 MB, 10 GB: vcpus are the bottleneck at 8.
// ---------------------------------------------------------------------------------------------

const given = DeciderSpecification.for(hostDecider);

const fold = (events: readonly HostEvent[]): HostState => foldEvents(hostDecider, events);

const registeredHost = (state: HostState) => {
  if (state.status !== 'Registered') throw new Error(`expected a registered host, got ${state.status}`);
  return state;
};

const TEN_TO_NOON = { startDate: at(10), endDate: at(12) };
const NOON_TO_TWO = { startDate: at(12), endDate: at(14) };

/** Slot shapes that make each resource the bottleneck on the 8 vcpu / 16384 MB / 100 GB host. */
const bottlenecks = [
  { resource: 'vcpus', demand: (count: number) => slots(count), fits: 8 },
  { resource: 'memoryMb', demand: (count: number) => slots(count, { memoryMb: 4096, diskGb: 0 }), fits: 4 },
  { resource: 'diskGb', demand: (count: number) => slots(count, { diskGb: 25 }), fits: 4 },
] as const;

// ---------------------------------------------------------------------------------------------
// BookHostSlots
// ---------------------------------------------------------------------------------------------

describe('BookHostSlots', () => {
  describe('When unregistered', () => {
    it('refuses: the host is not found', () => {
      given([])
        .when(bookSlots('res-1', slots(1), TEN_TO_NOON))
        .thenThrows('HOST_NOT_FOUND', 'Host unknown not found');
    });
  });

  describe('When removed', () => {
    it('refuses: the host is not found', () => {
      given([
        hostRegistered(),
        { type: 'Host.Unregistered', data: { hostId: HOST_ID, hypervisorHostname: 'compute-7', unregisteredAt: at(9) } },
      ])
        .when(bookSlots('res-1', slots(1), TEN_TO_NOON))
        .thenThrows('HOST_NOT_FOUND', 'Host 7 not found');
    });
  });

  describe('When not reservable', () => {
    it('refuses the slots', () => {
      given([hostRegistered(), hostReservableChanged(false)])
        .when(bookSlots('res-1', slots(1), TEN_TO_NOON))
        .thenThrows('HOST_NOT_RESERVABLE', 'Host 7 is not reservable');
    });

    it('judges reservability before the slots', () => {
      given([hostRegistered(), hostReservableChanged(false)])
        .when(bookSlots('res-1', slots(0), TEN_TO_NOON))
        .thenThrows('HOST_NOT_RESERVABLE');
    });

    it('accepts again once reservable', () => {
      given([hostRegistered(), hostReservableChanged(false), hostReservableChanged(true)])
        .when(bookSlots('res-1', slots(1), TEN_TO_NOON))
        .then([slotsBooked('res-1', slots(1), TEN_TO_NOON)]);
    });
  });

  describe('When registered and free', () => {
    it('books the slots, dropping cleaning time and allocation ratios from the event', () => {
      given([hostRegistered()])
        .when(
          bookSlots('res-1', slots(2), {
            ...TEN_TO_NOON,
            propertyNames: ['gpu'],
            cleaningTimeMinutes: 30,
            allocationRatios: { cpu: 2, ram: 1, disk: 1 },
          }),
        )
        .then([slotsBooked('res-1', slots(2), { ...TEN_TO_NOON, propertyNames: ['gpu'] })]);
    });

    it('accepts slots without disk', () => {
      given([hostRegistered()])
        .when(bookSlots('res-1', slots(1, { diskGb: 0 }), TEN_TO_NOON))
        .then([slotsBooked('res-1', slots(1, { diskGb: 0 }), TEN_TO_NOON)]);
    });

    it('accepts an empty window (a lease ended in its first minute)', () => {
      const empty = { startDate: at(10), endDate: at(10) };
      given([hostRegistered()])
        .when(bookSlots('res-1', slots(1), empty))
        .then([slotsBooked('res-1', slots(1), empty)]);
    });

    it('refuses a window whose end is before its start', () => {
      given([hostRegistered()])
        .when(bookSlots('res-1', slots(1), { startDate: at(12), endDate: at(10) }))
        .thenThrows('INVALID_PERIOD', 'The end_date must be later than the start_date.');
    });

    it('judges the period before the slots', () => {
      given([hostRegistered()])
        .when(bookSlots('res-1', slots(0), { startDate: at(12), endDate: at(10) }))
        .thenThrows('INVALID_PERIOD');
    });
  });

  describe('When the slots are malformed', () => {
    it.each([
      { name: 'count 0', demand: slots(0) },
      { name: 'negative count', demand: slots(-1) },
      { name: 'fractional count', demand: slots(1.5) },
      { name: 'vcpus 0', demand: slots(1, { vcpus: 0 }) },
      { name: 'fractional vcpus', demand: slots(1, { vcpus: 0.5 }) },
      { name: 'memoryMb 0', demand: slots(1, { memoryMb: 0 }) },
      { name: 'fractional memoryMb', demand: slots(1, { memoryMb: 512.5 }) },
      { name: 'negative diskGb', demand: slots(1, { diskGb: -1 }) },
      { name: 'fractional diskGb', demand: slots(1, { diskGb: 0.5 }) },
      { name: 'NaN count', demand: slots(Number.NaN) },
      { name: 'infinite vcpus', demand: slots(1, { vcpus: Number.POSITIVE_INFINITY }) },
      { name: 'count beyond safe integers', demand: slots(2 ** 53) },
    ])('refuses $name', ({ demand }) => {
      given([hostRegistered()])
        .when(bookSlots('res-1', demand, TEN_TO_NOON))
        .thenThrows('INVALID_SLOTS', 'Instance slots need count, vcpus and memory_mb of at least 1 and disk_gb of at least 0');
    });
  });

  describe('When the reservation already holds the host', () => {
    it('refuses the same reservation twice (slots)', () => {
      given([hostRegistered(), slotsBooked('res-1', slots(1), TEN_TO_NOON)])
        .when(bookSlots('res-1', slots(1), NOON_TO_TWO))
        .thenThrows('HOST_ALREADY_BOOKED', 'already booked by reservation res-1');
    });

    it('refuses slots for a reservation holding the whole host', () => {
      given([hostRegistered(), hostBooked('res-1', TEN_TO_NOON)])
        .when(bookSlots('res-1', slots(1), NOON_TO_TWO))
        .thenThrows('HOST_ALREADY_BOOKED', 'already booked by reservation res-1');
    });

    it('refuses the whole host for a reservation holding slots', () => {
      given([hostRegistered(), slotsBooked('res-1', slots(1), TEN_TO_NOON)])
        .when(bookHost('res-1', NOON_TO_TWO))
        .thenThrows('HOST_ALREADY_BOOKED', 'already booked by reservation res-1');
    });

    it('accepts the same reservation again once released', () => {
      given([hostRegistered(), slotsBooked('res-1', slots(8), TEN_TO_NOON), hostBookingReleased('res-1')])
        .when(bookSlots('res-1', slots(8), TEN_TO_NOON))
        .then([slotsBooked('res-1', slots(8), TEN_TO_NOON)]);
    });
  });

  describe('capacity of each resource', () => {
    describe.each(bottlenecks)('when $resource is the bottleneck ($fits slots)', ({ demand, fits }) => {
      it('fits exactly at capacity', () => {
        given([hostRegistered()])
          .when(bookSlots('res-1', demand(fits), TEN_TO_NOON))
          .then([slotsBooked('res-1', demand(fits), TEN_TO_NOON)]);
      });

      it('refuses one slot more than capacity', () => {
        given([hostRegistered()])
          .when(bookSlots('res-1', demand(fits + 1), TEN_TO_NOON))
          .thenThrows(
            'HOST_CAPACITY_EXCEEDED',
            `has room for ${fits} more instance(s) of this size between ${at(10)} and ${at(12)}, ${fits + 1} requested`,
          );
      });

      it('fits the rest next to another booking', () => {
        given([hostRegistered(), slotsBooked('res-1', demand(fits - 1), TEN_TO_NOON)])
          .when(bookSlots('res-2', demand(1), TEN_TO_NOON))
          .then([slotsBooked('res-2', demand(1), TEN_TO_NOON)]);
      });

      it('refuses one slot more next to another booking', () => {
        given([hostRegistered(), slotsBooked('res-1', demand(fits - 1), TEN_TO_NOON)])
          .when(bookSlots('res-2', demand(2), TEN_TO_NOON))
          .thenThrows('HOST_CAPACITY_EXCEEDED', 'has room for 1 more instance(s)');
      });
    });

    it('counts every resource of other slot sizes: big-memory slots leave room for vcpu-only ones', () => {
      // 4 x 4096 MB fill the memory but take only 4 vcpus
      given([hostRegistered(), slotsBooked('res-1', slots(4, { memoryMb: 4096, diskGb: 0 }), TEN_TO_NOON)])
        .when(bookSlots('res-2', slots(1, { memoryMb: 1, diskGb: 0 }), TEN_TO_NOON))
        .thenThrows('HOST_CAPACITY_EXCEEDED', 'room for 0 more');
    });

    it('lets slots of another size use what the first ones leave free', () => {
      // 4 slots of 1 vcpu / 2048 MB leave 4 vcpus and 8192 MB
      given([hostRegistered(), slotsBooked('res-1', slots(4, { memoryMb: 2048, diskGb: 0 }), TEN_TO_NOON)])
        .when(bookSlots('res-2', slots(2, { vcpus: 2, memoryMb: 4096, diskGb: 0 }), TEN_TO_NOON))
        .then([slotsBooked('res-2', slots(2, { vcpus: 2, memoryMb: 4096, diskGb: 0 }), TEN_TO_NOON)]);
    });

    it('refuses a single slot bigger than the host', () => {
      given([hostRegistered()])
        .when(bookSlots('res-1', slots(1, { vcpus: 9 }), TEN_TO_NOON))
        .thenThrows('HOST_CAPACITY_EXCEEDED', 'room for 0 more');
    });
  });

  describe('allocation ratios', () => {
    it('cpu 4.0 lets four times the vcpus', () => {
      const ratios = { cpu: 4, ram: 1, disk: 1 };
      const demand = slots(32, { memoryMb: 512, diskGb: 0 });
      given([hostRegistered()])
        .when(bookSlots('res-1', demand, { ...TEN_TO_NOON, allocationRatios: ratios }))
        .then([slotsBooked('res-1', demand, TEN_TO_NOON)]);
    });

    it('cpu 4.0 refuses one vcpu more', () => {
      const ratios = { cpu: 4, ram: 1, disk: 1 };
      given([hostRegistered()])
        .when(bookSlots('res-1', slots(33, { memoryMb: 256, diskGb: 0 }), { ...TEN_TO_NOON, allocationRatios: ratios }))
        .thenThrows('HOST_CAPACITY_EXCEEDED', 'room for 32 more');
    });

    it('fractional ratios floor: cpu 1.3 x 8 vcpus = 10', () => {
      const ratios = { cpu: 1.3, ram: 1, disk: 1 };
      given([hostRegistered()])
        .when(bookSlots('res-1', slots(10, { memoryMb: 1, diskGb: 0 }), { ...TEN_TO_NOON, allocationRatios: ratios }))
        .then([slotsBooked('res-1', slots(10, { memoryMb: 1, diskGb: 0 }), TEN_TO_NOON)]);
      given([hostRegistered()])
        .when(bookSlots('res-1', slots(11, { memoryMb: 1, diskGb: 0 }), { ...TEN_TO_NOON, allocationRatios: ratios }))
        .thenThrows('HOST_CAPACITY_EXCEEDED', 'room for 10 more');
    });

    it('fractional ratios floor: ram 0.9 x 16384 MB = 14745 MB', () => {
      const ratios = { cpu: 1, ram: 0.9, disk: 1 };
      given([hostRegistered()])
        .when(bookSlots('res-1', slots(1, { memoryMb: 14745 }), { ...TEN_TO_NOON, allocationRatios: ratios }))
        .then([slotsBooked('res-1', slots(1, { memoryMb: 14745 }), TEN_TO_NOON)]);
      given([hostRegistered()])
        .when(bookSlots('res-1', slots(1, { memoryMb: 14746 }), { ...TEN_TO_NOON, allocationRatios: ratios }))
        .thenThrows('HOST_CAPACITY_EXCEEDED');
    });

    it('disk 1.5 x 100 GB = 150 GB', () => {
      const ratios = { cpu: 1, ram: 1, disk: 1.5 };
      given([hostRegistered()])
        .when(bookSlots('res-1', slots(1, { diskGb: 150 }), { ...TEN_TO_NOON, allocationRatios: ratios }))
        .then([slotsBooked('res-1', slots(1, { diskGb: 150 }), TEN_TO_NOON)]);
      given([hostRegistered()])
        .when(bookSlots('res-1', slots(1, { diskGb: 151 }), { ...TEN_TO_NOON, allocationRatios: ratios }))
        .thenThrows('HOST_CAPACITY_EXCEEDED');
    });

    it('judges existing bookings with the ratios of the asking command', () => {
      // 16 slots fitted with cpu 2.0; asked with cpu 1.0 the host is already over, so nothing fits
      given([hostRegistered(), slotsBooked('res-1', slots(16, { memoryMb: 512, diskGb: 0 }), TEN_TO_NOON)])
        .when(bookSlots('res-2', slots(1, { memoryMb: 1, diskGb: 0 }), TEN_TO_NOON))
        .thenThrows('HOST_CAPACITY_EXCEEDED', 'room for 0 more');
    });
  });

  describe('peaks are per instant', () => {
    it('lets two bookings that do not overlap in time each use the full host', () => {
      given([hostRegistered(), slotsBooked('res-1', slots(8), { startDate: at(10), endDate: at(11) })])
        .when(bookSlots('res-2', slots(8), { startDate: at(13), endDate: at(14) }))
        .then([slotsBooked('res-2', slots(8), { startDate: at(13), endDate: at(14) })]);
    });

    it('refuses a full host over a window that overlaps a booking by one minute', () => {
      given([hostRegistered(), slotsBooked('res-1', slots(1), TEN_TO_NOON)])
        .when(bookSlots('res-2', slots(8), { startDate: at(11, 59), endDate: at(14) }))
        .thenThrows('HOST_CAPACITY_EXCEEDED', 'room for 7 more');
    });

    describe('a chain [10,12) [11,13) [12,14) of 3 slots each: 6 in use at most, never 9', () => {
      // intervals that overlap pairwise always share an instant (Helly), so the chain is the case where
      // a window meets three bookings that are never all in use together
      const chain = (): HostEvent[] => [
        hostRegistered(),
        slotsBooked('res-a', slots(3), { startDate: at(10), endDate: at(12) }),
        slotsBooked('res-b', slots(3), { startDate: at(11), endDate: at(13) }),
        slotsBooked('res-c', slots(3), { startDate: at(12), endDate: at(14) }),
      ];
      const wholeChain = { startDate: at(10), endDate: at(14) };

      it('fits 2 more over the whole chain', () => {
        given(chain())
          .when(bookSlots('res-d', slots(2), wholeChain))
          .then([slotsBooked('res-d', slots(2), wholeChain)]);
      });

      it('refuses 3 more over the whole chain', () => {
        given(chain())
          .when(bookSlots('res-d', slots(3), wholeChain))
          .thenThrows('HOST_CAPACITY_EXCEEDED', 'room for 2 more');
      });

      it('fits 5 more where only the first is in use', () => {
        const early = { startDate: at(10), endDate: at(11) };
        given(chain())
          .when(bookSlots('res-d', slots(5), early))
          .then([slotsBooked('res-d', slots(5), early)]);
        given(chain())
          .when(bookSlots('res-d', slots(6), early))
          .thenThrows('HOST_CAPACITY_EXCEEDED', 'room for 5 more');
      });

      it('fits 5 more where only the last is in use', () => {
        const late = { startDate: at(13), endDate: at(14) };
        given(chain())
          .when(bookSlots('res-d', slots(5), late))
          .then([slotsBooked('res-d', slots(5), late)]);
        given(chain())
          .when(bookSlots('res-d', slots(6), late))
          .thenThrows('HOST_CAPACITY_EXCEEDED', 'room for 5 more');
      });
    });

    it('finds a long early booking that still runs through the window', () => {
      given([
        hostRegistered(),
        slotsBooked('res-long', slots(4), { startDate: at(0), endDate: at(23) }),
        slotsBooked('res-short', slots(1), { startDate: at(1), endDate: at(2) }),
        slotsBooked('res-mid', slots(1), { startDate: at(3), endDate: at(4) }),
      ])
        .when(bookSlots('res-new', slots(5), { startDate: at(20), endDate: at(21) }))
        .thenThrows('HOST_CAPACITY_EXCEEDED', 'room for 4 more');
    });
  });

  describe('half-open boundaries', () => {
    it('accepts a full host starting exactly when another full booking ends', () => {
      given([hostRegistered(), slotsBooked('res-1', slots(8), TEN_TO_NOON)])
        .when(bookSlots('res-2', slots(8), NOON_TO_TWO))
        .then([slotsBooked('res-2', slots(8), NOON_TO_TWO)]);
    });

    it('accepts a full host ending exactly when another full booking starts', () => {
      given([hostRegistered(), slotsBooked('res-1', slots(8), NOON_TO_TWO)])
        .when(bookSlots('res-2', slots(8), TEN_TO_NOON))
        .then([slotsBooked('res-2', slots(8), TEN_TO_NOON)]);
    });

    it('accepts a full host between two full bookings touching it on both sides', () => {
      given([
        hostRegistered(),
        slotsBooked('res-1', slots(8), { startDate: at(8), endDate: at(10) }),
        slotsBooked('res-3', slots(8), { startDate: at(12), endDate: at(14) }),
      ])
        .when(bookSlots('res-2', slots(8), TEN_TO_NOON))
        .then([slotsBooked('res-2', slots(8), TEN_TO_NOON)]);
    });

    it('does not add a booking that ends at an instant to one starting then', () => {
      // [10,12) 5 slots and [12,14) 5 slots never run together: 3 more fit over [11,13)
      given([hostRegistered(), slotsBooked('res-1', slots(5), TEN_TO_NOON), slotsBooked('res-2', slots(5), NOON_TO_TWO)])
        .when(bookSlots('res-3', slots(3), { startDate: at(11), endDate: at(13) }))
        .then([slotsBooked('res-3', slots(3), { startDate: at(11), endDate: at(13) })]);
    });
  });

  describe('cleaning time', () => {
    describe('next to a whole-host booking [10:00, 12:00)', () => {
      const wholeHost = (): HostEvent[] => [hostRegistered(), hostBooked('res-1', TEN_TO_NOON)];

      it('refuses slots overlapping it', () => {
        given(wholeHost())
          .when(bookSlots('res-2', slots(1), { startDate: at(11), endDate: at(13) }))
          .thenThrows('HOST_CAPACITY_EXCEEDED', 'room for 0 more');
      });

      it('refuses slots inside it', () => {
        given(wholeHost())
          .when(bookSlots('res-2', slots(1), { startDate: at(10, 30), endDate: at(11, 30) }))
          .thenThrows('HOST_CAPACITY_EXCEEDED');
      });

      it('accepts slots right after it without cleaning time', () => {
        given(wholeHost())
          .when(bookSlots('res-2', slots(8), NOON_TO_TWO))
          .then([slotsBooked('res-2', slots(8), NOON_TO_TWO)]);
      });

      it('refuses slots right after it within the cleaning time', () => {
        given(wholeHost())
          .when(bookSlots('res-2', slots(1), { ...NOON_TO_TWO, cleaningTimeMinutes: 30 }))
          .thenThrows('HOST_CAPACITY_EXCEEDED', 'room for 0 more');
      });

      it('refuses slots right before it within the cleaning time', () => {
        given(wholeHost())
          .when(bookSlots('res-2', slots(1), { startDate: at(8), endDate: at(10), cleaningTimeMinutes: 30 }))
          .thenThrows('HOST_CAPACITY_EXCEEDED');
      });

      it('refuses slots one minute short of the cleaning time', () => {
        given(wholeHost())
          .when(bookSlots('res-2', slots(1), { startDate: at(12, 29), endDate: at(14), cleaningTimeMinutes: 30 }))
          .thenThrows('HOST_CAPACITY_EXCEEDED');
      });

      it('accepts slots exactly the cleaning time after it', () => {
        const after = { startDate: at(12, 30), endDate: at(14) };
        given(wholeHost())
          .when(bookSlots('res-2', slots(8), { ...after, cleaningTimeMinutes: 30 }))
          .then([slotsBooked('res-2', slots(8), after)]);
      });

      it('accepts slots exactly the cleaning time before it', () => {
        const before = { startDate: at(8), endDate: at(9, 30) };
        given(wholeHost())
          .when(bookSlots('res-2', slots(8), { ...before, cleaningTimeMinutes: 30 }))
          .then([slotsBooked('res-2', slots(8), before)]);
      });
    });

    describe('next to slots [10:00, 12:00)', () => {
      const withSlots = (): HostEvent[] => [hostRegistered(), slotsBooked('res-1', slots(1), TEN_TO_NOON)];

      it('refuses the whole host overlapping them, however few', () => {
        given(withSlots())
          .when(bookHost('res-2', { startDate: at(11), endDate: at(13) }))
          .thenThrows('HOST_ALREADY_BOOKED', 'Host 7 is already booked between');
      });

      it('accepts the whole host right after them without cleaning time', () => {
        given(withSlots())
          .when(bookHost('res-2', NOON_TO_TWO))
          .then([hostBooked('res-2', NOON_TO_TWO)]);
      });

      it('refuses the whole host right after them within the cleaning time', () => {
        given(withSlots())
          .when(bookHost('res-2', { ...NOON_TO_TWO, cleaningTimeMinutes: 30 }))
          .thenThrows('HOST_ALREADY_BOOKED');
      });

      it('refuses the whole host right before them within the cleaning time', () => {
        given(withSlots())
          .when(bookHost('res-2', { startDate: at(8), endDate: at(10), cleaningTimeMinutes: 30 }))
          .thenThrows('HOST_ALREADY_BOOKED');
      });

      it('accepts the whole host exactly the cleaning time after them', () => {
        given(withSlots())
          .when(bookHost('res-2', { startDate: at(12, 30), endDate: at(14), cleaningTimeMinutes: 30 }))
          .then([hostBooked('res-2', { startDate: at(12, 30), endDate: at(14) })]);
      });

      it('does not separate slot bookings from each other', () => {
        given([hostRegistered(), slotsBooked('res-1', slots(8), TEN_TO_NOON)])
          .when(bookSlots('res-2', slots(8), { ...NOON_TO_TWO, cleaningTimeMinutes: 30 }))
          .then([slotsBooked('res-2', slots(8), NOON_TO_TWO)]);
      });

      it('does not count slots within the cleaning time but outside the window', () => {
        given([hostRegistered(), slotsBooked('res-1', slots(8), TEN_TO_NOON)])
          .when(bookSlots('res-2', slots(8), { startDate: at(8), endDate: at(10), cleaningTimeMinutes: 60 }))
          .then([slotsBooked('res-2', slots(8), { startDate: at(8), endDate: at(10) })]);
      });
    });
  });

  describe('empty windows', () => {
    it('accepts empty slots inside full slots (they hold nothing)', () => {
      const empty = { startDate: at(11), endDate: at(11) };
      given([hostRegistered(), slotsBooked('res-1', slots(8), TEN_TO_NOON)])
        .when(bookSlots('res-2', slots(8), empty))
        .then([slotsBooked('res-2', slots(8), empty)]);
    });

    it('refuses empty slots inside a whole-host booking', () => {
      given([hostRegistered(), hostBooked('res-1', TEN_TO_NOON)])
        .when(bookSlots('res-2', slots(1), { startDate: at(11), endDate: at(11) }))
        .thenThrows('HOST_CAPACITY_EXCEEDED');
    });
  });
});

// ---------------------------------------------------------------------------------------------
// MoveHostSlots
// ---------------------------------------------------------------------------------------------

describe('MoveHostSlots', () => {
  describe('When unregistered', () => {
    it('refuses: the host is not found', () => {
      given([])
        .when(moveSlots('res-1', slots(1), TEN_TO_NOON))
        .thenThrows('HOST_NOT_FOUND');
    });
  });

  describe('When removed', () => {
    it('refuses: the host is not found', () => {
      given([
        hostRegistered(),
        { type: 'Host.Unregistered', data: { hostId: HOST_ID, hypervisorHostname: 'compute-7', unregisteredAt: at(9) } },
      ])
        .when(moveSlots('res-1', slots(1), TEN_TO_NOON))
        .thenThrows('HOST_NOT_FOUND', 'Host 7 not found');
    });
  });

  describe('When the reservation has no slots here', () => {
    it('refuses an unknown reservation', () => {
      given([hostRegistered(), slotsBooked('res-1', slots(1), TEN_TO_NOON)])
        .when(moveSlots('res-9', slots(1), TEN_TO_NOON))
        .thenThrows('BOOKING_NOT_FOUND', 'Host 7 has no instance slots for reservation res-9');
    });

    it('refuses a released reservation', () => {
      given([hostRegistered(), slotsBooked('res-1', slots(1), TEN_TO_NOON), hostBookingReleased('res-1')])
        .when(moveSlots('res-1', slots(1), NOON_TO_TWO))
        .thenThrows('BOOKING_NOT_FOUND');
    });

    it('refuses a reservation that holds the whole host', () => {
      given([hostRegistered(), hostBooked('res-1', TEN_TO_NOON)])
        .when(moveSlots('res-1', slots(1), TEN_TO_NOON))
        .thenThrows('BOOKING_NOT_FOUND', 'Host 7 has no instance slots for reservation res-1');
    });
  });

  describe('When the reservation holds 4 slots [10:00, 12:00) next to 4 slots of res-2', () => {
    const shared = (): HostEvent[] => [
      hostRegistered(),
      slotsBooked('res-1', slots(4), TEN_TO_NOON),
      slotsBooked('res-2', slots(4), TEN_TO_NOON),
    ];

    it('does nothing when nothing changes', () => {
      given(shared())
        .when(moveSlots('res-1', slots(4), TEN_TO_NOON))
        .thenNothing();
    });

    it('does nothing when nothing changes, even if the ratios now leave no room', () => {
      given(shared())
        .when(moveSlots('res-1', slots(4), { ...TEN_TO_NOON, allocationRatios: { cpu: 0.5, ram: 1, disk: 1 } }))
        .thenNothing();
    });

    it('refuses a count up past capacity', () => {
      given(shared())
        .when(moveSlots('res-1', slots(5), TEN_TO_NOON))
        .thenThrows('HOST_CAPACITY_EXCEEDED', 'room for 4 more instance(s) of this size');
    });

    it('accepts a count down', () => {
      given(shared())
        .when(moveSlots('res-1', slots(3), TEN_TO_NOON))
        .then([slotsMoved('res-1', slots(3), TEN_TO_NOON)]);
    });

    it('accepts a count up within capacity once res-2 shrank', () => {
      given([...shared(), slotsMoved('res-2', slots(2), TEN_TO_NOON)])
        .when(moveSlots('res-1', slots(6), TEN_TO_NOON))
        .then([slotsMoved('res-1', slots(6), TEN_TO_NOON)]);
    });

    it('refuses bigger slots past capacity', () => {
      given(shared())
        .when(moveSlots('res-1', slots(4, { vcpus: 2 }), TEN_TO_NOON))
        .thenThrows('HOST_CAPACITY_EXCEEDED', 'room for 2 more');
    });

    it('accepts bigger slots with a higher cpu ratio', () => {
      given(shared())
        .when(moveSlots('res-1', slots(4, { vcpus: 2 }), { ...TEN_TO_NOON, allocationRatios: { cpu: 2, ram: 1, disk: 1 } }))
        .then([slotsMoved('res-1', slots(4, { vcpus: 2 }), TEN_TO_NOON)]);
    });

    it('records new property names even when dates and slots stay', () => {
      given(shared())
        .when(moveSlots('res-1', slots(4), { ...TEN_TO_NOON, propertyNames: ['gpu'] }))
        .then([slotsMoved('res-1', slots(4), { ...TEN_TO_NOON, propertyNames: ['gpu'] })]);
    });

    it('refuses a move onto a whole-host booking', () => {
      given([...shared(), hostBooked('res-3', NOON_TO_TWO)])
        .when(moveSlots('res-1', slots(4), { startDate: at(10), endDate: at(13) }))
        .thenThrows('HOST_CAPACITY_EXCEEDED', 'room for 0 more');
    });

    it('refuses a move within the cleaning time of a whole-host booking', () => {
      given([...shared(), hostBooked('res-3', { startDate: at(12, 15), endDate: at(14) })])
        .when(moveSlots('res-1', slots(4), { ...TEN_TO_NOON, cleaningTimeMinutes: 30, propertyNames: ['gpu'] }))
        .thenThrows('HOST_CAPACITY_EXCEEDED');
    });

    it('refuses an end before the start', () => {
      given(shared())
        .when(moveSlots('res-1', slots(4), { startDate: at(12), endDate: at(10) }))
        .thenThrows('INVALID_PERIOD');
    });

    it('refuses malformed slots', () => {
      given(shared())
        .when(moveSlots('res-1', slots(0), TEN_TO_NOON))
        .thenThrows('INVALID_SLOTS');
      given(shared())
        .when(moveSlots('res-1', slots(4, { vcpus: 0 }), TEN_TO_NOON))
        .thenThrows('INVALID_SLOTS');
      given(shared())
        .when(moveSlots('res-1', slots(4, { memoryMb: 0 }), TEN_TO_NOON))
        .thenThrows('INVALID_SLOTS');
      given(shared())
        .when(moveSlots('res-1', slots(4, { diskGb: -1 }), TEN_TO_NOON))
        .thenThrows('INVALID_SLOTS');
      given(shared())
        .when(moveSlots('res-1', slots(2.5), TEN_TO_NOON))
        .thenThrows('INVALID_SLOTS');
    });

    it('accepts an empty window (a lease ended in its first minute)', () => {
      const empty = { startDate: at(10), endDate: at(10) };
      given(shared())
        .when(moveSlots('res-1', slots(4), empty))
        .then([slotsMoved('res-1', slots(4), empty)]);
    });
  });

  describe('When the reservation holds the full host [10:00, 12:00) alone', () => {
    const alone = (): HostEvent[] => [hostRegistered(), slotsBooked('res-1', slots(8), TEN_TO_NOON)];

    it('does not count itself when shifting over its old window', () => {
      const shifted = { startDate: at(11), endDate: at(13) };
      given(alone())
        .when(moveSlots('res-1', slots(8), shifted))
        .then([slotsMoved('res-1', slots(8), shifted)]);
    });

    it('does not count itself when extending', () => {
      const extended = { startDate: at(10), endDate: at(16) };
      given(alone())
        .when(moveSlots('res-1', slots(8), extended))
        .then([slotsMoved('res-1', slots(8), extended)]);
    });

    it('refuses to extend over another booking', () => {
      given([...alone(), slotsBooked('res-2', slots(1), { startDate: at(13), endDate: at(14) })])
        .when(moveSlots('res-1', slots(8), { startDate: at(10), endDate: at(16) }))
        .thenThrows('HOST_CAPACITY_EXCEEDED', 'room for 7 more');
    });

    it('still moves once the host is no longer reservable, as MoveHostBooking does', () => {
      const shifted = { startDate: at(11), endDate: at(13) };
      given([...alone(), hostReservableChanged(false)])
        .when(moveSlots('res-1', slots(8), shifted))
        .then([slotsMoved('res-1', slots(8), shifted)]);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// MoveHostBooking and ReleaseHostBooking with slots around
// ---------------------------------------------------------------------------------------------

describe('MoveHostBooking next to slots', () => {
  it('refuses to move the slots of a reservation as a whole-host booking', () => {
    given([hostRegistered(), slotsBooked('res-1', slots(1), TEN_TO_NOON)])
      .when(moveHostBooking('res-1', NOON_TO_TWO))
      .thenThrows('BOOKING_NOT_FOUND', 'Host 7 has no booking for reservation res-1');
  });

  it('refuses to move the whole host onto slots', () => {
    given([hostRegistered(), hostBooked('res-1', TEN_TO_NOON), slotsBooked('res-2', slots(1), NOON_TO_TWO)])
      .when(moveHostBooking('res-1', { startDate: at(10), endDate: at(13) }))
      .thenThrows('HOST_ALREADY_BOOKED');
  });

  it('refuses to move the whole host within the cleaning time of slots', () => {
    given([hostRegistered(), hostBooked('res-1', TEN_TO_NOON), slotsBooked('res-2', slots(1), NOON_TO_TWO)])
      .when(moveHostBooking('res-1', { startDate: at(9), endDate: at(11, 45), cleaningTimeMinutes: 30 }))
      .thenThrows('HOST_ALREADY_BOOKED');
  });

  it('moves the whole host next to slots without cleaning time', () => {
    given([hostRegistered(), hostBooked('res-1', TEN_TO_NOON), slotsBooked('res-2', slots(1), NOON_TO_TWO)])
      .when(moveHostBooking('res-1', { startDate: at(9), endDate: at(12) }))
      .then([hostBookingMoved('res-1', { startDate: at(9), endDate: at(12) })]);
  });
});

describe('ReleaseHostBooking of slots', () => {
  it('releases the slots, naming their lease', () => {
    given([hostRegistered(), slotsBooked('res-1', slots(4), TEN_TO_NOON)])
      .when(releaseHostBooking('res-1'))
      .then([hostBookingReleased('res-1')]);
  });

  it('frees their capacity', () => {
    given([hostRegistered(), slotsBooked('res-1', slots(8), TEN_TO_NOON), hostBookingReleased('res-1')])
      .when(bookSlots('res-2', slots(8), TEN_TO_NOON))
      .then([slotsBooked('res-2', slots(8), TEN_TO_NOON)]);
  });

  it('frees the host for a whole-host booking', () => {
    given([hostRegistered(), slotsBooked('res-1', slots(1), TEN_TO_NOON), hostBookingReleased('res-1')])
      .when(bookHost('res-2', TEN_TO_NOON))
      .then([hostBooked('res-2', TEN_TO_NOON)]);
  });
});

describe('slot bookings and the rest of the host', () => {
  const withGpu = (): HostEvent[] => [
    hostRegistered(),
    { type: 'Host.CapabilitiesUpdated', data: { hostId: HOST_ID, capabilities: { gpu: 'true' }, updatedAt: at(8) } },
  ];

  it('keep a capability they depend on from changing', () => {
    given([...withGpu(), slotsBooked('res-1', slots(1), { ...TEN_TO_NOON, propertyNames: ['gpu'] })])
      .when({ type: 'UpdateHostCapabilities', data: { capabilities: { gpu: 'false' }, now: at(9) } })
      .thenThrows('CAPABILITY_IN_USE', "Can't update extra capability gpu of host 7");
  });

  it('keep the host from being unregistered until released', () => {
    const unregister = { type: 'UnregisterHost', data: { now: at(9) } } as const;
    given([hostRegistered(), slotsBooked('res-1', slots(1), TEN_TO_NOON)])
      .when(unregister)
      .thenThrows('HOST_RESERVED');
    given([hostRegistered(), slotsBooked('res-1', slots(1), TEN_TO_NOON), hostBookingReleased('res-1')])
      .when(unregister)
      .then([{ type: 'Host.Unregistered', data: { hostId: HOST_ID, hypervisorHostname: 'compute-7', unregisteredAt: at(9) } }]);
  });
});

// ---------------------------------------------------------------------------------------------
// evolve
// ---------------------------------------------------------------------------------------------

describe('evolve (slots)', () => {
  it('Registered -> no bookings and longestBookingMs 0', () => {
    expect(registeredHost(fold([hostRegistered()]))).toMatchObject({ bookings: [], longestBookingMs: 0 });
  });

  it('SlotsBooked records the slots with the booking', () => {
    const state = registeredHost(fold([hostRegistered(), slotsBooked('res-1', slots(3), { ...TEN_TO_NOON, propertyNames: ['gpu'] })]));
    expect(state.bookings).toEqual([
      {
        reservationId: 'res-1',
        leaseId: LEASE_ID,
        startDate: at(10),
        endDate: at(12),
        start: toMs(at(10)),
        end: toMs(at(12)),
        propertyNames: ['gpu'],
        slots: slots(3),
      },
    ]);
  });

  it('keeps whole-host and slot bookings together, sorted by start', () => {
    const state = registeredHost(
      fold([
        hostRegistered(),
        slotsBooked('res-c', slots(1), { startDate: at(14), endDate: at(15) }),
        hostBooked('res-a', { startDate: at(8), endDate: at(9) }),
        slotsBooked('res-b', slots(1), { startDate: at(10), endDate: at(11) }),
        slotsBooked('res-b2', slots(1), { startDate: at(10), endDate: at(12) }),
      ]),
    );
    expect(state.bookings.map((b) => [b.reservationId, b.slots?.count ?? 'whole'])).toEqual([
      ['res-a', 'whole'],
      ['res-b', 1],
      ['res-b2', 1],
      ['res-c', 1],
    ]);
  });

  it('SlotsMoved updates dates, ms bounds, property names and slots, keeping the lease and the order', () => {
    const state = registeredHost(
      fold([
        hostRegistered(),
        slotsBooked('res-a', slots(1), { startDate: at(8), endDate: at(9) }),
        slotsBooked('res-b', slots(1), { startDate: at(10), endDate: at(11) }),
        slotsMoved('res-a', slots(5, { vcpus: 1 }), { startDate: at(16), endDate: at(17), propertyNames: ['gpu'] }),
      ]),
    );
    expect(state.bookings.map((b) => b.reservationId)).toEqual(['res-b', 'res-a']);
    expect(state.bookings[1]).toEqual({
      reservationId: 'res-a',
      leaseId: LEASE_ID,
      startDate: at(16),
      endDate: at(17),
      start: toMs(at(16)),
      end: toMs(at(17)),
      propertyNames: ['gpu'],
      slots: slots(5),
    });
  });

  it('BookingMoved keeps the slots of a booking', () => {
    const state = registeredHost(
      fold([hostRegistered(), slotsBooked('res-a', slots(2), TEN_TO_NOON), hostBookingMoved('res-a', NOON_TO_TWO)]),
    );
    expect(state.bookings[0]).toMatchObject({ startDate: at(12), endDate: at(14), slots: slots(2) });
  });

  it('SlotsMoved of an unknown reservation changes nothing', () => {
    const before = fold([hostRegistered(), slotsBooked('res-a', slots(2), TEN_TO_NOON)]);
    expect(hostDecider.evolve(before, slotsMoved('res-x', slots(1), NOON_TO_TWO))).toEqual(before);
  });

  it('BookingReleased removes slots', () => {
    const state = registeredHost(fold([hostRegistered(), slotsBooked('res-a', slots(2), TEN_TO_NOON), hostBookingReleased('res-a')]));
    expect(state.bookings).toEqual([]);
  });

  it('longestBookingMs grows with the longest booking and never shrinks', () => {
    const hours = (n: number): number => n * 60 * MINUTE_MS;
    const history: HostEvent[] = [hostRegistered()];
    const longest = (): number => registeredHost(fold(history)).longestBookingMs;

    history.push(slotsBooked('res-a', slots(1), { startDate: at(10), endDate: at(12) }));
    expect(longest()).toBe(hours(2));
    history.push(hostBooked('res-b', { startDate: at(13), endDate: at(14) }));
    expect(longest()).toBe(hours(2));
    history.push(slotsMoved('res-a', slots(1), { startDate: at(10), endDate: at(10, 30) }));
    expect(longest()).toBe(hours(2));
    history.push(hostBookingMoved('res-b', { startDate: at(13), endDate: at(18) }));
    expect(longest()).toBe(hours(5));
    history.push(hostBookingReleased('res-b'));
    expect(longest()).toBe(hours(5));
    history.push(slotsBooked('res-c', slots(1), { startDate: at(0), endDate: at(23) }));
    expect(longest()).toBe(hours(23));
  });

  it('ignores slot events before registration', () => {
    expect(fold([slotsBooked('res-a', slots(1), TEN_TO_NOON)])).toEqual({ status: 'Unregistered' });
  });
});
