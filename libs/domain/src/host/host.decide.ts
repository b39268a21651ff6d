import type { Decider } from '../shared/decider.js';
import { conflict, notFound } from '../shared/errors.js';
import type {
  BookHost,
  BookHostSlots,
  HostCommand,
  MoveHostBooking,
  MoveHostSlots,
  RecordHostEnrollment,
  RegisterHost,
  ReportHostHealth,
  UnregisterHost,
  UpdateHostCapabilities,
} from './host.commands.js';
import type { HostEvent } from './host.events.js';
import { evolveHost } from './host.evolve.js';
import { cancelMaintenance, scheduleMaintenance } from './host.maintenance.js';
import {
  bookingUnchanged,
  checkBookable,
  checkCapabilityKeys,
  checkFits,
  isReferenced,
  liveBookings,
  requireBooking,
  requireRegistered,
  sameReasons,
} from './host.rules.js';
import { type HostState, initialHostState } from './host.state.js';
import { DEFAULT_ALLOCATION_RATIOS, HOST_DOWN_REASONS } from './host.types.js';

const register = ({ data }: RegisterHost, state: HostState): HostEvent[] => {
  if (state.status !== 'Unregistered') {
    throw conflict('HOST_ALREADY_REGISTERED', `Host ${data.hostId} is already registered`);
  }
  checkCapabilityKeys(data.capabilities);
  return [
    {
      type: 'Host.Registered',
      data: { hostId: data.hostId, info: data.info, capabilities: data.capabilities, registeredAt: data.now },
    },
  ];
};

const updateCapabilities = ({ data }: UpdateHostCapabilities, state: HostState): HostEvent[] => {
  const host = requireRegistered(state);
  checkCapabilityKeys(data.capabilities);
  const changed = Object.keys(data.capabilities).filter(
    (key) => !Object.hasOwn(host.capabilities, key) || host.capabilities[key] !== data.capabilities[key],
  );
  const inUse = changed.filter((key) => Object.hasOwn(host.capabilities, key) && isReferenced(host, key, data.now));
  if (inUse.length > 0) {
    throw conflict(
      'CAPABILITY_IN_USE',
      `Can't update extra capability ${inUse.join(', ')} of host ${host.hostId}: it is used by a current or future reservation`,
    );
  }
  if (changed.length === 0) return [];
  const capabilities = Object.fromEntries(changed.map((key) => [key, data.capabilities[key] as string]));
  return [{ type: 'Host.CapabilitiesUpdated', data: { hostId: host.hostId, capabilities, updatedAt: data.now } }];
};

const unregister = ({ data }: UnregisterHost, state: HostState): HostEvent[] => {
  const host = requireRegistered(state);
  if (liveBookings(host, data.now).length > 0) {
    throw conflict('HOST_RESERVED', `Can't delete host ${host.hostId}. The host is reserved.`);
  }
  return [
    {
      type: 'Host.Unregistered',
      data: { hostId: host.hostId, hypervisorHostname: host.info.hypervisorHostname, unregisteredAt: data.now },
    },
  ];
};

const book = ({ data }: BookHost, state: HostState): HostEvent[] => {
  const host = requireRegistered(state);
  checkBookable(host, data.reservationId);
  checkFits(host, { ...data, slots: null, allocationRatios: DEFAULT_ALLOCATION_RATIOS });
  const { reservationId, leaseId, startDate, endDate, propertyNames } = data;
  return [{ type: 'Host.Booked', data: { hostId: host.hostId, reservationId, leaseId, startDate, endDate, propertyNames } }];
};

const bookSlots = ({ data }: BookHostSlots, state: HostState): HostEvent[] => {
  const host = requireRegistered(state);
  checkBookable(host, data.reservationId);
  checkFits(host, data);
  const { reservationId, leaseId, startDate, endDate, propertyNames, slots } = data;
  return [{ type: 'Host.SlotsBooked', data: { hostId: host.hostId, reservationId, leaseId, startDate, endDate, propertyNames, slots } }];
};

const move = ({ data }: MoveHostBooking, state: HostState): HostEvent[] => {
  const host = requireRegistered(state);
  const current = requireBooking(host, data.reservationId, false);
  const { reservationId, startDate, endDate, propertyNames } = data;
  if (bookingUnchanged(current, startDate, endDate, propertyNames, null)) return [];
  checkFits(host, { ...data, slots: null, allocationRatios: DEFAULT_ALLOCATION_RATIOS });
  return [{ type: 'Host.BookingMoved', data: { hostId: host.hostId, reservationId, startDate, endDate, propertyNames } }];
};

const moveSlots = ({ data }: MoveHostSlots, state: HostState): HostEvent[] => {
  const host = requireRegistered(state);
  const current = requireBooking(host, data.reservationId, true);
  const { reservationId, startDate, endDate, propertyNames, slots } = data;
  if (bookingUnchanged(current, startDate, endDate, propertyNames, slots)) return [];
  checkFits(host, data);
  return [{ type: 'Host.SlotsMoved', data: { hostId: host.hostId, reservationId, startDate, endDate, propertyNames, slots } }];
};

/** Records a change of health only: repeated observations of the same state add nothing. */
const reportHealth = ({ data }: ReportHostHealth, state: HostState): HostEvent[] => {
  const host = requireRegistered(state);
  const reasons = HOST_DOWN_REASONS.filter((reason) => data.reasons.includes(reason));
  const { source, observedAt } = data;
  const { hostId, health } = host;
  if (reasons.length === 0) return health.status === 'up' ? [] : [{ type: 'Host.CameUp', data: { hostId, source, observedAt } }];
  if (health.status === 'up') return [{ type: 'Host.WentDown', data: { hostId, reasons, source, observedAt } }];
  return sameReasons(health.reasons, reasons) ? [] : [{ type: 'Host.DownReasonsChanged', data: { hostId, reasons, source, observedAt } }];
};

/**
 * Enrollment follows registration and un-enrollment follows removal; an outcome for a host in any
 * other state means the reactor's view is stale. Repeats are kept out by the reactor's event ids.
 */
const recordEnrollment = ({ data }: RecordHostEnrollment, state: HostState): HostEvent[] => {
  const { hostId, direction, outcome, now } = data;
  const expected = direction === 'enroll' ? 'Registered' : 'Removed';
  if (state.status === 'Unregistered' || state.hostId !== hostId) throw notFound('HOST_NOT_FOUND', `Host ${hostId} not found`);
  if (state.status !== expected) {
    throw conflict('HOST_ENROLLMENT_STALE', `Host ${hostId} is ${state.status.toLowerCase()}: its ${direction} outcome no longer applies`);
  }
  const { effects } = outcome;
  if (direction === 'enroll') {
    return outcome.ok
      ? [{ type: 'Host.Enrolled', data: { hostId, effects, enrolledAt: now } }]
      : [{ type: 'Host.EnrollmentFailed', data: { hostId, error: outcome.error, effects, failedAt: now } }];
  }
  return outcome.ok
    ? [{ type: 'Host.Unenrolled', data: { hostId, effects, unenrolledAt: now } }]
    : [{ type: 'Host.UnenrollmentFailed', data: { hostId, error: outcome.error, effects, failedAt: now } }];
};

const decide = (command: HostCommand, state: HostState): readonly HostEvent[] => {
  switch (command.type) {
    case 'RegisterHost':
      return register(command, state);
    case 'UpdateHostCapabilities':
      return updateCapabilities(command, state);
    case 'SetHostReservable': {
      const host = requireRegistered(state);
      if (host.reservable === command.data.reservable) return [];
      const { reservable, reason, now } = command.data;
      return [{ type: 'Host.ReservableChanged', data: { hostId: host.hostId, reservable, reason, changedAt: now } }];
    }
    case 'UnregisterHost':
      return unregister(command, state);
    case 'BookHost':
      return book(command, state);
    case 'BookHostSlots':
      return bookSlots(command, state);
    case 'MoveHostBooking':
      return move(command, state);
    case 'MoveHostSlots':
      return moveSlots(command, state);
    case 'ReleaseHostBooking': {
      const host = requireRegistered(state);
      const booking = host.bookings.find((b) => b.reservationId === command.data.reservationId);
      if (!booking) return [];
      return [
        { type: 'Host.BookingReleased', data: { hostId: host.hostId, reservationId: booking.reservationId, leaseId: booking.leaseId } },
      ];
    }
    case 'ReportHostHealth':
      return reportHealth(command, state);
    case 'RecordHostEnrollment':
      return recordEnrollment(command, state);
    case 'ScheduleHostMaintenance':
      return scheduleMaintenance(command, state);
    case 'CancelHostMaintenance':
      return cancelMaintenance(command, state);
    default: {
      const _never: never = command;
      return _never;
    }
  }
};

export const hostDecider: Decider<HostState, HostCommand, HostEvent> = { initialState: initialHostState, decide, evolve: evolveHost };
