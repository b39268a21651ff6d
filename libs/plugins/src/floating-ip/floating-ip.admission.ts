import { toMs } from '#domain/index.js';
import { type AdmissionContext, type ReservationAdmission, bookingWindow } from '../admission/admission.port.js';
import { checkAmount } from '../admission/amount.js';
import { allocateFloatingIps, floatingIpSupply, notEnoughFloatingIpsError } from './floating-ip-allocation.policy.js';
import { type FloatingIpReservationRequest, checkRequiredCount } from './floating-ip-reservation.request.js';
import type { FloatingIpAllocation, FloatingIpReservation } from './floating-ip.reservation.js';
import { checkFloatingIpChange, checkStartedFloatingIpAmount } from './floating-ip.rules.js';
import type { FloatingIpChange } from './floating-ip.wire.js';

/** Chooses addresses with the floating-IP policy and books them (or moves the reservation's current ones). */
const chooseFloatingIps = (
  context: AdmissionContext,
  id: string,
  request: FloatingIpReservationRequest,
  current: FloatingIpReservation | null,
  started: boolean,
): FloatingIpAllocation[] => {
  const { calendars, schedule } = context;
  const window = bookingWindow(context, id, []);
  const result = allocateFloatingIps(
    {
      networkId: request.networkId,
      amount: request.amount,
      requiredAddresses: request.requiredFloatingIps,
      window: { start: toMs(schedule.startDate), end: toMs(schedule.endDate) },
      cleaningTimeMs: calendars.cleaningTimeMs,
      ...(current === null ? {} : { reservationId: id, current: current.allocations.map((a) => a.address), keepAll: started }),
    },
    calendars.floatingIpSnapshots(),
  );
  if (!result.ok) throw notEnoughFloatingIpsError(result);
  const before = new Set((current?.allocations ?? []).map((a) => a.floatingIpId));
  for (const floatingIpId of before)
    if (!result.allocations.some((a) => a.floatingIpId === floatingIpId)) calendars.releaseFloatingIp(floatingIpId, id);
  for (const allocation of result.allocations) {
    if (before.has(allocation.floatingIpId)) calendars.moveFloatingIp(allocation.floatingIpId, window);
    else calendars.bookFloatingIp(allocation.floatingIpId, window);
  }
  return [...result.allocations];
};

const readmit = (
  context: AdmissionContext,
  reservation: FloatingIpReservation,
  patch: FloatingIpChange | undefined,
  started: boolean,
): FloatingIpReservation => {
  checkFloatingIpChange(reservation, { networkId: patch?.networkId ?? null, requiredFloatingIps: patch?.requiredFloatingIps ?? null });
  const amount = checkAmount(patch?.amount ?? reservation.amount);
  if (started) checkStartedFloatingIpAmount(reservation, amount);
  // stored addresses are canonical already: only their count is judged against the new amount
  const requiredFloatingIps = patch?.requiredFloatingIps != null ? [] : reservation.requiredFloatingIps;
  checkRequiredCount(requiredFloatingIps, amount);
  const request: FloatingIpReservationRequest = {
    resourceType: 'virtual:floatingip',
    networkId: reservation.networkId,
    amount,
    requiredFloatingIps,
  };
  const allocations = chooseFloatingIps(context, reservation.id, request, reservation, started);
  return { ...reservation, amount, requiredFloatingIps, allocations };
};

/** virtual:floatingip: registered addresses of one network; hosts never hold them, so there is nothing to heal. */
export const floatingIpAdmission: ReservationAdmission<FloatingIpReservation, FloatingIpReservationRequest, FloatingIpChange> = {
  admit: (context, request) => {
    const id = context.newId();
    const allocations = chooseFloatingIps(context, id, request, null, false);
    const { networkId, amount, requiredFloatingIps } = request;
    return { id, resourceId: context.newId(), resourceType: 'virtual:floatingip', networkId, amount, requiredFloatingIps, allocations };
  },
  readmit,
  heal: () => null,
  supply: ({ calendars, schedule }, request) => {
    const window = { start: toMs(schedule.startDate), end: toMs(schedule.endDate) };
    const { registered, free } = floatingIpSupply(
      { networkId: request.networkId, window, cleaningTimeMs: calendars.cleaningTimeMs },
      calendars.floatingIpSnapshots(),
    );
    return { matching: registered, free };
  },
  release: (context, reservation) => {
    for (const { floatingIpId } of reservation.allocations) context.calendars.releaseFloatingIp(floatingIpId, reservation.id);
  },
};
