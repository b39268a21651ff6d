import {
  type Decider,
  MINUTE_MS,
  clearOfMaintenance,
  conflict,
  insertSorted,
  invalid,
  isFree,
  notFound,
  toMs,
  widen,
  withWindow,
} from '#domain/index.js';
import type {
  BookNetworkSegment,
  MoveNetworkSegmentBooking,
  NetworkSegmentCommand,
  RegisterNetworkSegment,
  UnregisterNetworkSegment,
  UpdateNetworkSegment,
} from './network-segment.commands.js';
import type { NetworkSegmentEvent } from './network-segment.events.js';
import { cancelMaintenance, scheduleMaintenance } from './network-segment.maintenance.js';
import {
  capabilitiesInUse,
  changedCapabilities,
  checkCapabilityNames,
  checkNetworkSegment,
  describeSegment,
  liveBookings,
  requireRegistered,
  segmentReserved,
} from './network-segment.rules.js';
import { type NetworkSegmentState, type RegisteredNetworkSegment, initialNetworkSegmentState } from './network-segment.state.js';

const register = ({ data }: RegisterNetworkSegment, state: NetworkSegmentState): NetworkSegmentEvent[] => {
  if (state.status !== 'Unregistered') throw conflict('NETWORK_EXISTS', `Network ${data.networkId} already exists`);
  checkNetworkSegment(data);
  checkCapabilityNames(Object.keys(data.capabilities));
  const { now, ...registered } = data;
  return [{ type: 'NetworkSegment.Registered', data: { ...registered, registeredAt: now } }];
};

const update = ({ data }: UpdateNetworkSegment, state: NetworkSegmentState): NetworkSegmentEvent[] => {
  const segment = requireRegistered(state);
  checkCapabilityNames([...Object.keys(data.set), ...data.unset]);
  const changed = changedCapabilities(segment.capabilities, data.set, data.unset);
  const altered = [...Object.keys(changed.set).filter((name) => Object.hasOwn(segment.capabilities, name)), ...changed.unset];
  const inUse = capabilitiesInUse(segment, altered, toMs(data.now));
  if (inUse.length > 0) {
    throw conflict(
      'CAPABILITY_IN_USE',
      `Can't update extra capability ${inUse.join(', ')} of network ${segment.networkId}: it is used by a current or future reservation`,
    );
  }
  if (Object.keys(changed.set).length === 0 && changed.unset.length === 0) return [];
  const { networkId } = segment;
  return [{ type: 'NetworkSegment.Updated', data: { networkId, capabilities: changed.set, removed: changed.unset, updatedAt: data.now } }];
};

const unregister = ({ data }: UnregisterNetworkSegment, state: NetworkSegmentState): NetworkSegmentEvent[] => {
  const segment = requireRegistered(state);
  // Chameleon refuses while any allocation exists; a finished one no longer holds the segment
  if (liveBookings(segment, toMs(data.now)).length > 0) throw segmentReserved(segment.networkId);
  const { networkId, networkType, physicalNetwork, segmentId } = segment;
  return [{ type: 'NetworkSegment.Unregistered', data: { networkId, networkType, physicalNetwork, segmentId, unregisteredAt: data.now } }];
};

/**
 * The calendar's invariant: no segment in two reservations whose windows, widened by the cleaning time, overlap; and
 * no booking gains an instant inside a maintenance window of the segment.
 */
const checkFree = (segment: RegisteredNetworkSegment, data: MoveNetworkSegmentBooking['data']): void => {
  const { startDate, endDate, reservationId } = data;
  // an empty booking is allowed: it is what a lease ended in its first minute leaves behind
  if (toMs(endDate) < toMs(startDate)) throw invalid('INVALID_PERIOD', 'The end_date must be later than the start_date.');
  const period = { start: toMs(startDate), end: toMs(endDate) };
  const cleaningTimeMs = data.cleaningTimeMinutes * MINUTE_MS;
  if (!isFree(segment.bookings, widen(period, cleaningTimeMs), (booking) => booking.reservationId === reservationId)) {
    throw conflict('NETWORK_ALREADY_BOOKED', `Network ${describeSegment(segment)} is already reserved between ${startDate} and ${endDate}`);
  }
  if (!clearOfMaintenance(segment, period, cleaningTimeMs, reservationId)) {
    throw conflict(
      'NETWORK_IN_MAINTENANCE',
      `Network ${describeSegment(segment)} is in maintenance during part of ${startDate} to ${endDate}`,
    );
  }
};

const book = ({ data }: BookNetworkSegment, state: NetworkSegmentState): NetworkSegmentEvent[] => {
  const segment = requireRegistered(state);
  if (segment.bookings.some((booking) => booking.reservationId === data.reservationId)) {
    throw conflict('NETWORK_ALREADY_BOOKED', `Network ${describeSegment(segment)} is already booked by reservation ${data.reservationId}`);
  }
  checkFree(segment, data);
  const { reservationId, leaseId, startDate, endDate, propertyNames } = data;
  return [
    { type: 'NetworkSegment.Booked', data: { networkId: segment.networkId, reservationId, leaseId, startDate, endDate, propertyNames } },
  ];
};

const sameNames = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((name, i) => name === b[i]);

const move = ({ data }: MoveNetworkSegmentBooking, state: NetworkSegmentState): NetworkSegmentEvent[] => {
  const segment = requireRegistered(state);
  const current = segment.bookings.find((booking) => booking.reservationId === data.reservationId);
  if (current === undefined) {
    throw notFound('BOOKING_NOT_FOUND', `Network ${segment.networkId} has no booking for reservation ${data.reservationId}`);
  }
  const { reservationId, startDate, endDate, propertyNames } = data;
  if (current.startDate === startDate && current.endDate === endDate && sameNames(current.propertyNames, propertyNames)) return [];
  checkFree(segment, data);
  const { networkId } = segment;
  const { leaseId } = current;
  return [{ type: 'NetworkSegment.BookingMoved', data: { networkId, reservationId, leaseId, startDate, endDate, propertyNames } }];
};

const release = (reservationId: string, state: NetworkSegmentState): NetworkSegmentEvent[] => {
  const segment = requireRegistered(state);
  const booking = segment.bookings.find((b) => b.reservationId === reservationId);
  if (booking === undefined) return [];
  return [{ type: 'NetworkSegment.BookingReleased', data: { networkId: segment.networkId, reservationId, leaseId: booking.leaseId } }];
};

const decide = (command: NetworkSegmentCommand, state: NetworkSegmentState): readonly NetworkSegmentEvent[] => {
  switch (command.type) {
    case 'RegisterNetworkSegment':
      return register(command, state);
    case 'UpdateNetworkSegment':
      return update(command, state);
    case 'UnregisterNetworkSegment':
      return unregister(command, state);
    case 'BookNetworkSegment':
      return book(command, state);
    case 'MoveNetworkSegmentBooking':
      return move(command, state);
    case 'ReleaseNetworkSegmentBooking':
      return release(command.data.reservationId, state);
    case 'ScheduleNetworkSegmentMaintenance':
      return scheduleMaintenance(command, requireRegistered(state));
    case 'CancelNetworkSegmentMaintenance':
      return cancelMaintenance(command, requireRegistered(state));
    default: {
      const _never: never = command;
      return _never;
    }
  }
};

const withoutNames = (capabilities: RegisteredNetworkSegment['capabilities'], names: readonly string[]) =>
  Object.fromEntries(Object.entries(capabilities).filter(([name]) => !names.includes(name)));

const evolveRegistered = (segment: RegisteredNetworkSegment, event: NetworkSegmentEvent): NetworkSegmentState => {
  switch (event.type) {
    case 'NetworkSegment.Registered':
      return segment;
    case 'NetworkSegment.Updated': {
      const capabilities = { ...withoutNames(segment.capabilities, event.data.removed), ...event.data.capabilities };
      return { ...segment, capabilities };
    }
    case 'NetworkSegment.Unregistered':
      return { status: 'Removed', networkId: segment.networkId };
    case 'NetworkSegment.Booked': {
      const { networkId: _segment, ...booking } = event.data;
      return {
        ...segment,
        bookings: insertSorted(segment.bookings, { ...booking, start: toMs(booking.startDate), end: toMs(booking.endDate) }),
      };
    }
    case 'NetworkSegment.BookingMoved': {
      const { networkId: _segment, ...moved } = event.data;
      const bookings = insertSorted(segment.bookings, { ...moved, start: toMs(moved.startDate), end: toMs(moved.endDate) });
      return { ...segment, bookings };
    }
    case 'NetworkSegment.BookingReleased':
      return { ...segment, bookings: segment.bookings.filter((booking) => booking.reservationId !== event.data.reservationId) };
    case 'NetworkSegment.MaintenanceScheduled': {
      const { networkId: _segment, scheduledAt: _at, ...window } = event.data;
      return { ...segment, maintenance: withWindow(segment.maintenance, window) };
    }
    case 'NetworkSegment.MaintenanceCancelled':
      return { ...segment, maintenance: segment.maintenance.filter((window) => window.windowId !== event.data.windowId) };
    default: {
      const _never: never = event;
      return segment;
    }
  }
};

const evolve = (state: NetworkSegmentState, event: NetworkSegmentEvent): NetworkSegmentState => {
  if (event.type === 'NetworkSegment.Registered') {
    const { registeredAt, ...segment } = event.data;
    return { status: 'Registered', ...segment, bookings: [], maintenance: [], registeredAt };
  }
  return state.status === 'Registered' ? evolveRegistered(state, event) : state;
};

/** A network segment: its registration, its extra capabilities, and its calendar (one holder at a time). */
export const networkSegmentDecider: Decider<NetworkSegmentState, NetworkSegmentCommand, NetworkSegmentEvent> = {
  initialState: initialNetworkSegmentState,
  decide,
  evolve,
};
