import { type HostReplacement, toMs } from '#domain/index.js';
import { hostSupply } from './host-allocation.policy.js';
import { type AdmissionContext, type Healing, type ReservationAdmission, bookingWindow } from '../admission/admission.port.js';
import type { BookingWindow } from '../admission/calendars.port.js';
import { type HostReservationRequest, buildHostRequest } from './host-reservation.request.js';
import type { HostReservation } from './host.reservation.js';
import type { HostChange } from './host.wire.js';

const fieldsOf = ({ query: _query, propertyNames: _names, ...fields }: HostReservationRequest) => fields;

/** A started reservation keeps exactly its hosts (they are already in its aggregate); a pending one may move. */
const chooseHosts = (
  context: AdmissionContext,
  reservation: HostReservation,
  wanted: HostReservationRequest,
  window: BookingWindow,
  started: boolean,
) => {
  const { calendars } = context;
  if (!started) {
    return calendars.allocate(
      { min: wanted.min, max: wanted.max, query: wanted.query, reservationId: reservation.id, keepHostIds: reservation.hostIds },
      window,
    );
  }
  calendars.checkKeptHosts(reservation.hostIds, window);
  return reservation.hostIds;
};

const admit = (context: AdmissionContext, request: HostReservationRequest): HostReservation => {
  const id = context.newId();
  const window = bookingWindow(context, id, request.propertyNames);
  const hostIds = context.calendars.allocate({ min: request.min, max: request.max, query: request.query }, window);
  for (const hostId of hostIds) context.calendars.book(hostId, window);
  return { id, resourceId: context.newId(), ...fieldsOf(request), hostIds };
};

const readmit = (
  context: AdmissionContext,
  reservation: HostReservation,
  patch: HostChange | undefined,
  started: boolean,
): HostReservation => {
  const wanted = buildHostRequest({
    min: patch?.min ?? reservation.min,
    max: patch?.max ?? reservation.max,
    hypervisorProperties: patch?.hypervisorProperties ?? reservation.hypervisorProperties,
    resourceProperties: patch?.resourceProperties ?? reservation.resourceProperties,
    beforeEnd: patch?.beforeEnd ?? reservation.beforeEnd,
  });
  const { calendars } = context;
  const window = bookingWindow(context, reservation.id, wanted.propertyNames);
  const hostIds = chooseHosts(context, reservation, wanted, window, started);
  for (const hostId of reservation.hostIds) if (!hostIds.includes(hostId)) calendars.release(hostId, reservation.id);
  for (const hostId of hostIds) {
    if (reservation.hostIds.includes(hostId)) calendars.move(hostId, window, started);
    else calendars.book(hostId, window);
  }
  return { ...reservation, ...fieldsOf(wanted), hostIds };
};

/** One matching free host per failed host; the reservation's own hosts are busy in the window, down ones unreservable. */
const heal = (context: AdmissionContext, reservation: HostReservation, down: ReadonlySet<string>): Healing<HostReservation> | null => {
  const failed = reservation.hostIds.filter((hostId) => down.has(hostId));
  if (failed.length === 0) return null;
  const wanted = buildHostRequest(reservation);
  const { calendars } = context;
  const window = bookingWindow(context, reservation.id, wanted.propertyNames);
  const chosen = calendars.allocate({ min: 0, max: failed.length, query: wanted.query }, window);
  const replacements = chosen.map((by, index): HostReplacement => ({ hostId: failed[index] ?? '', by: [by] }));
  for (const { hostId, by } of replacements) {
    calendars.release(hostId, reservation.id);
    for (const replacement of by) calendars.book(replacement, window);
  }
  const replacedBy = new Map(replacements.map((r) => [r.hostId, r.by[0] ?? r.hostId]));
  const hostIds = reservation.hostIds.map((hostId) => replacedBy.get(hostId) ?? hostId);
  return { reservation: { ...reservation, hostIds }, replacements, unhealedHostIds: failed.slice(replacements.length) };
};

/** physical:host: whole hosts, chosen by the host policy. */
export const hostAdmission: ReservationAdmission<HostReservation, HostReservationRequest, HostChange> = {
  admit,
  readmit,
  heal,
  supply: ({ calendars, schedule }, request) => {
    const window = { start: toMs(schedule.startDate), end: toMs(schedule.endDate) };
    const { matching, free } = hostSupply(
      { query: request.query, window, cleaningTimeMs: calendars.cleaningTimeMs },
      calendars.snapshots(),
    );
    return { matching, free: free.length };
  },
  release: (context, reservation) => {
    for (const hostId of reservation.hostIds) context.calendars.release(hostId, reservation.id);
  },
};
