import type { Decider } from '../shared/decider.js';
import { conflict, invalid, notFound } from '../shared/errors.js';
import { MINUTE_MS, insertSorted, toMs } from '../shared/interval.js';
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
import { type HostState, type RegisteredHost, initialHostState } from './host.state.js';
import { freeSlotCount, slotCapacity, wholeHostFree } from './host.capacity.js';
import {
  type AllocationRatios,
  type Booking,
  type Capabilities,
  DEFAULT_ALLOCATION_RATIOS,
  HOST_DOWN_REASONS,
  type HostDownReason,
  MAX_CAPABILITY_KEY_LENGTH,
  type SlotDemand,
} from './host.types.js';

const requireRegistered = (state: HostState): RegisteredHost => {
  if (state.status !== 'Registered') {
    const id = state.status === 'Removed' ? state.hostId : 'unknown';
    throw notFound('HOST_NOT_FOUND', `Host ${id} not found`);
  }
  return state;
};

const checkCapabilityKeys = (capabilities: Capabilities): void => {
  for (const key of Object.keys(capabilities)) {
    if (key.length > MAX_CAPABILITY_KEY_LENGTH) throw invalid('EXTRA_CAPABILITY_TOO_LONG', 'Extra capability key too long');
    if (key.length === 0) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter extra capability (empty key)');
  }
};

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

/** Bookings that have not ended at `now`: what makes a host "reserved now or in future". */
const liveBookings = (host: RegisteredHost, now: string): Booking[] => host.bookings.filter((b) => b.end > toMs(now));

const updateCapabilities = ({ data }: UpdateHostCapabilities, state: HostState): HostEvent[] => {
  const host = requireRegistered(state);
  checkCapabilityKeys(data.capabilities);
  const changed = Object.keys(data.capabilities).filter((key) => !Object.hasOwn(host.capabilities, key) || host.capabilities[key] !== data.capabilities[key]);
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

const isReferenced = (host: RegisteredHost, key: string, now: string): boolean =>
  liveBookings(host, now).some((b) => b.propertyNames.includes(key));

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

interface BookingRequest {
  readonly reservationId: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly cleaningTimeMinutes: number;
  readonly slots: SlotDemand | null;
  readonly allocationRatios: AllocationRatios;
}

const isSlotDemand = (slots: SlotDemand | null): slots is SlotDemand => slots !== null;

const checkSlotDemand = (slots: SlotDemand): void => {
  const whole = (value: number, min: number): boolean => Number.isSafeInteger(value) && value >= min;
  if (!whole(slots.count, 1) || !whole(slots.vcpus, 1) || !whole(slots.memoryMb, 1) || !whole(slots.diskGb, 0)) {
    throw invalid('INVALID_SLOTS', 'Instance slots need count, vcpus and memory_mb of at least 1 and disk_gb of at least 0');
  }
};

/**
 * The host's calendar invariant: a whole-host booking shares its window (widened by the cleaning
 * time) with nothing; slot bookings never take more than capacity x allocation ratio at any instant.
 */
const checkFits = (host: RegisteredHost, request: BookingRequest): void => {
  const { reservationId, startDate, endDate, slots } = request;
  // an empty booking is allowed: it is what a lease ended in its first minute leaves behind
  if (toMs(endDate) < toMs(startDate)) throw invalid('INVALID_PERIOD', 'The end_date must be later than the start_date.');
  const window = { start: toMs(startDate), end: toMs(endDate) };
  const cleaningTimeMs = request.cleaningTimeMinutes * MINUTE_MS;
  if (!isSlotDemand(slots)) {
    if (!wholeHostFree(host, window, cleaningTimeMs, reservationId)) {
      throw conflict('HOST_ALREADY_BOOKED', `Host ${host.hostId} is already booked between ${startDate} and ${endDate}`);
    }
    return;
  }
  checkSlotDemand(slots);
  const totals = { vcpus: host.info.vcpus, memoryMb: host.info.memoryMb, diskGb: host.info.localGb };
  const free = freeSlotCount(host, slotCapacity(totals, request.allocationRatios), { window, cleaningTimeMs, demand: slots, reservationId });
  if (free < slots.count) {
    throw conflict(
      'HOST_CAPACITY_EXCEEDED',
      `Host ${host.hostId} has room for ${free} more instance(s) of this size between ${startDate} and ${endDate}, ${slots.count} requested`,
    );
  }
};

const checkBookable = (host: RegisteredHost, reservationId: string): void => {
  if (!host.reservable) throw conflict('HOST_NOT_RESERVABLE', `Host ${host.hostId} is not reservable`);
  if (host.health.status === 'down') throw conflict('HOST_DOWN', `Host ${host.hostId} is down (${host.health.reasons.join(', ')})`);
  if (host.bookings.some((b) => b.reservationId === reservationId)) {
    throw conflict('HOST_ALREADY_BOOKED', `Host ${host.hostId} is already booked by reservation ${reservationId}`);
  }
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

const sameSlots = (a: SlotDemand | null, b: SlotDemand | null): boolean =>
  a === b || (a !== null && b !== null && a.count === b.count && a.vcpus === b.vcpus && a.memoryMb === b.memoryMb && a.diskGb === b.diskGb);

const requireBooking = (host: RegisteredHost, reservationId: string, slots: boolean): Booking => {
  const current = host.bookings.find((b) => b.reservationId === reservationId && (b.slots !== null) === slots);
  if (!current) {
    const kind = slots ? 'instance slots' : 'booking';
    throw notFound('BOOKING_NOT_FOUND', `Host ${host.hostId} has no ${kind} for reservation ${reservationId}`);
  }
  return current;
};

const unchanged = (current: Booking, startDate: string, endDate: string, propertyNames: readonly string[], slots: SlotDemand | null): boolean =>
  current.startDate === startDate &&
  current.endDate === endDate &&
  current.propertyNames.length === propertyNames.length &&
  current.propertyNames.every((n, i) => n === propertyNames[i]) &&
  sameSlots(current.slots, slots);

const move = ({ data }: MoveHostBooking, state: HostState): HostEvent[] => {
  const host = requireRegistered(state);
  const current = requireBooking(host, data.reservationId, false);
  const { reservationId, startDate, endDate, propertyNames } = data;
  if (unchanged(current, startDate, endDate, propertyNames, null)) return [];
  checkFits(host, { ...data, slots: null, allocationRatios: DEFAULT_ALLOCATION_RATIOS });
  return [{ type: 'Host.BookingMoved', data: { hostId: host.hostId, reservationId, startDate, endDate, propertyNames } }];
};

const moveSlots = ({ data }: MoveHostSlots, state: HostState): HostEvent[] => {
  const host = requireRegistered(state);
  const current = requireBooking(host, data.reservationId, true);
  const { reservationId, startDate, endDate, propertyNames, slots } = data;
  if (unchanged(current, startDate, endDate, propertyNames, slots)) return [];
  checkFits(host, data);
  return [{ type: 'Host.SlotsMoved', data: { hostId: host.hostId, reservationId, startDate, endDate, propertyNames, slots } }];
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
      return [{ type: 'Host.BookingReleased', data: { hostId: host.hostId, reservationId: booking.reservationId, leaseId: booking.leaseId } }];
    }
    case 'ReportHostHealth':
      return reportHealth(command, state);
    case 'RecordHostEnrollment':
      return recordEnrollment(command, state);
    default: {
      const _never: never = command;
      return _never;
    }
  }
};

const sameReasons = (a: readonly HostDownReason[], b: readonly HostDownReason[]): boolean => a.length === b.length && a.every((r) => b.includes(r));

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

const withBooking = (host: RegisteredHost, booking: Booking): RegisteredHost => ({
  ...host,
  bookings: insertSorted(host.bookings, booking),
  longestBookingMs: Math.max(host.longestBookingMs, booking.end - booking.start),
});

const evolveRegistered = (host: RegisteredHost, event: HostEvent): HostState => {
  switch (event.type) {
    case 'Host.Registered':
      return host;
    case 'Host.CapabilitiesUpdated':
      return { ...host, capabilities: { ...host.capabilities, ...event.data.capabilities }, updatedAt: event.data.updatedAt };
    case 'Host.ReservableChanged':
      return { ...host, reservable: event.data.reservable, updatedAt: event.data.changedAt };
    case 'Host.Unregistered':
      return { status: 'Removed', hostId: host.hostId };
    case 'Host.Booked':
    case 'Host.SlotsBooked': {
      const { hostId: _host, ...booking } = event.data;
      const slots = event.type === 'Host.SlotsBooked' ? event.data.slots : null;
      return withBooking(host, { ...booking, slots, start: toMs(booking.startDate), end: toMs(booking.endDate) });
    }
    case 'Host.BookingMoved':
    case 'Host.SlotsMoved': {
      const current = host.bookings.find((b) => b.reservationId === event.data.reservationId);
      if (!current) return host;
      const { startDate, endDate, propertyNames } = event.data;
      const slots = event.type === 'Host.SlotsMoved' ? event.data.slots : current.slots;
      return withBooking(host, { ...current, startDate, endDate, propertyNames, slots, start: toMs(startDate), end: toMs(endDate) });
    }
    case 'Host.BookingReleased':
      return { ...host, bookings: host.bookings.filter((b) => b.reservationId !== event.data.reservationId) };
    case 'Host.WentDown':
      return { ...host, health: { status: 'down', reasons: event.data.reasons, since: event.data.observedAt } };
    case 'Host.DownReasonsChanged':
      return host.health.status === 'down' ? { ...host, health: { ...host.health, reasons: event.data.reasons } } : host;
    case 'Host.CameUp':
      return { ...host, health: { status: 'up' } };
    case 'Host.Enrolled':
    case 'Host.EnrollmentFailed':
    case 'Host.Unenrolled':
    case 'Host.UnenrollmentFailed':
      return host;
    default: {
      const _never: never = event;
      return _never;
    }
  }
};

const evolve = (state: HostState, event: HostEvent): HostState => {
  if (event.type === 'Host.Registered') {
    const { hostId, info, capabilities, registeredAt } = event.data;
    return { status: 'Registered', hostId, info, capabilities, reservable: true, health: { status: 'up' }, bookings: [], longestBookingMs: 0, registeredAt, updatedAt: null };
  }
  return state.status === 'Registered' ? evolveRegistered(state, event) : state;
};

export const hostDecider: Decider<HostState, HostCommand, HostEvent> = { initialState: initialHostState, decide, evolve };
