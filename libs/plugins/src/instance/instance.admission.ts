import { type HostReplacement, type SlotDemand, toMs, visibleFlavor } from '#domain/index.js';
import {
  type AdmissionContext,
  type Healing,
  type ReservationAdmission,
  type ReservationSupply,
  bookingWindow,
} from '../admission/admission.port.js';
import type { BookingWindow } from '../admission/calendars.port.js';
import { EMPTY_QUERY } from '../query/blazar-query.js';
import { flavorResourceProperties } from './flavor-snapshot.js';
import {
  type InstanceAllocationRequest,
  type InstanceAllocationResult,
  allocateInstances,
  instanceSupply,
  notEnoughInstanceSlotsError,
} from './instance-allocation.policy.js';
import { checkAmount } from '../admission/amount.js';
import {
  type FlavorInstanceReservationRequest,
  type InstanceReservationRequest,
  buildInstanceRequest,
} from './instance-reservation.request.js';
import type { FlavorInstanceReservation, InstanceReservation, SlotAllocation, VirtualInstanceReservation } from './instance.reservation.js';
import { checkFlavorUnchanged, checkStartedInstanceChange } from './instance.rules.js';
import { type FlavorInstanceChange, type VirtualInstanceChange, changedAffinity } from './instance.wire.js';

type SlotAsk = Omit<InstanceAllocationRequest, 'window' | 'cleaningTimeMs' | 'ratios'>;

/** The instance policy over the context's window, among the calendars' hosts but `excluded`. */
const ask = (context: AdmissionContext, request: SlotAsk, excluded: ReadonlySet<string> = new Set()): InstanceAllocationResult => {
  const { calendars, schedule } = context;
  const window = { start: toMs(schedule.startDate), end: toMs(schedule.endDate) };
  const candidates = calendars.snapshots().filter((host) => !excluded.has(host.id));
  return allocateInstances(
    { ...request, window, cleaningTimeMs: calendars.cleaningTimeMs, ratios: calendars.allocationRatios },
    candidates,
  );
};

/** Hosts that could hold one such instance and how many fit over the context's window, as carveSlots would see them. */
const slotSupply = (context: AdmissionContext, request: InstanceReservationRequest): ReservationSupply => {
  const { calendars, schedule } = context;
  const window = { start: toMs(schedule.startDate), end: toMs(schedule.endDate) };
  const demand = { vcpus: request.vcpus, memoryMb: request.memoryMb, diskGb: request.diskGb };
  const { cleaningTimeMs, allocationRatios: ratios } = calendars;
  const { matching, available } = instanceSupply(
    { demand, affinity: request.affinity, query: request.query, window, cleaningTimeMs, ratios },
    calendars.snapshots(),
  );
  return { matching, free: available };
};

/** Chooses slots with the instance policy and books them (or moves the reservation's current ones). */
const carveSlots = (
  context: AdmissionContext,
  id: string,
  request: InstanceReservationRequest,
  current: InstanceReservation | null,
  started: boolean,
): SlotAllocation[] => {
  const { calendars } = context;
  const window = bookingWindow(context, id, request.propertyNames);
  const demand = { vcpus: request.vcpus, memoryMb: request.memoryMb, diskGb: request.diskGb };
  const result = ask(context, {
    amount: request.amount,
    demand,
    affinity: request.affinity,
    query: request.query,
    ...(current === null ? {} : { reservationId: id, current: current.allocations, keepAll: started }),
  });
  if (!result.ok) throw notEnoughInstanceSlotsError(result);
  const before = new Map((current?.allocations ?? []).map((a) => [a.hostId, a.count]));
  for (const [hostId] of before) if (!result.allocations.some((a) => a.hostId === hostId)) calendars.release(hostId, id);
  for (const allocation of result.allocations) {
    const slots: SlotDemand = { count: allocation.count, ...demand };
    if (before.has(allocation.hostId)) calendars.moveSlots(allocation.hostId, window, slots, started);
    else calendars.bookSlots(allocation.hostId, window, slots);
  }
  return [...result.allocations];
};

/**
 * How healing asks for a reservation's slots: its sizes and affinity, its query (a flavor reservation's resourceProperties describe the
 * flavor, not hosts).
 */
interface SlotHealing {
  readonly window: BookingWindow;
  readonly ask: Omit<SlotAsk, 'amount'>;
}

const slotHealing = (context: AdmissionContext, reservation: InstanceReservation): SlotHealing => {
  const { query, propertyNames } =
    reservation.resourceType === 'virtual:instance' ? buildInstanceRequest(reservation) : { query: EMPTY_QUERY, propertyNames: [] };
  const demand = { vcpus: reservation.vcpus, memoryMb: reservation.memoryMb, diskGb: reservation.diskGb };
  return { window: bookingWindow(context, reservation.id, propertyNames), ask: { demand, affinity: reservation.affinity, query } };
};

/** Affinity: all slots stay together, so the whole reservation moves to one host with room for all of them. */
const healTogether = <R extends InstanceReservation>(
  context: AdmissionContext,
  reservation: R,
  failed: readonly SlotAllocation[],
): Healing<R> => {
  const { calendars } = context;
  const { window, ask: slots } = slotHealing(context, reservation);
  const result = ask(context, { ...slots, amount: reservation.amount, reservationId: reservation.id });
  if (!result.ok) return { reservation, replacements: [], unhealedHostIds: failed.map((a) => a.hostId) };
  for (const { hostId } of reservation.allocations) calendars.release(hostId, reservation.id);
  for (const a of result.allocations) calendars.bookSlots(a.hostId, window, { count: a.count, ...slots.demand });
  const by = result.allocations.map((a) => a.hostId);
  const replacements = reservation.allocations.map((a) => ({ hostId: a.hostId, by }));
  return { reservation: { ...reservation, allocations: [...result.allocations] }, replacements, unhealedHostIds: [] };
};

/** Each failed host's slots elsewhere: anti-affinity never on a host the reservation uses, otherwise any host with room. */
const healApart = <R extends InstanceReservation>(
  context: AdmissionContext,
  reservation: R,
  failed: readonly SlotAllocation[],
): Healing<R> => {
  const { calendars } = context;
  const { window, ask: slots } = slotHealing(context, reservation);
  let allocations = [...reservation.allocations];
  const replacements: HostReplacement[] = [];
  const unhealedHostIds: string[] = [];
  for (const lost of failed) {
    const excluded = new Set(reservation.affinity === false ? allocations.map((a) => a.hostId) : []);
    const result = ask(context, { ...slots, amount: lost.count }, excluded);
    if (!result.ok) {
      unhealedHostIds.push(lost.hostId);
      continue;
    }
    calendars.release(lost.hostId, reservation.id);
    allocations = allocations.filter((a) => a.hostId !== lost.hostId);
    for (const found of result.allocations) {
      const held = allocations.find((a) => a.hostId === found.hostId);
      if (held === undefined) {
        calendars.bookSlots(found.hostId, window, { count: found.count, ...slots.demand });
        allocations.push(found);
      } else {
        calendars.moveSlots(found.hostId, window, { count: held.count + found.count, ...slots.demand });
        allocations = allocations.map((a) => (a === held ? { hostId: a.hostId, count: a.count + found.count } : a));
      }
    }
    replacements.push({ hostId: lost.hostId, by: result.allocations.map((a) => a.hostId) });
  }
  allocations.sort((a, b) => (a.hostId < b.hostId ? -1 : a.hostId > b.hostId ? 1 : 0));
  return { reservation: { ...reservation, allocations }, replacements, unhealedHostIds };
};

/** Down hosts are no candidates (the calendars' snapshots leave them out); what cannot move is kept and reported. */
const healSlots = <R extends InstanceReservation>(
  context: AdmissionContext,
  reservation: R,
  down: ReadonlySet<string>,
): Healing<R> | null => {
  const failed = reservation.allocations.filter((a) => down.has(a.hostId));
  if (failed.length === 0) return null;
  return reservation.affinity === true ? healTogether(context, reservation, failed) : healApart(context, reservation, failed);
};

const releaseSlots = (context: AdmissionContext, reservation: InstanceReservation): void => {
  for (const { hostId } of reservation.allocations) context.calendars.release(hostId, reservation.id);
};

const readmitInstances = (
  context: AdmissionContext,
  reservation: VirtualInstanceReservation,
  patch: VirtualInstanceChange | undefined,
  started: boolean,
): VirtualInstanceReservation => {
  const wanted = buildInstanceRequest({
    amount: patch?.amount ?? reservation.amount,
    vcpus: patch?.vcpus ?? reservation.vcpus,
    memoryMb: patch?.memoryMb ?? reservation.memoryMb,
    diskGb: patch?.diskGb ?? reservation.diskGb,
    affinity: changedAffinity(patch, reservation.affinity),
    resourceProperties: patch?.resourceProperties ?? reservation.resourceProperties,
  });
  if (started) checkStartedInstanceChange(reservation, wanted);
  const allocations = carveSlots(context, reservation.id, wanted, reservation, started);
  const { amount, vcpus, memoryMb, diskGb, affinity, resourceProperties } = wanted;
  return { ...reservation, amount, vcpus, memoryMb, diskGb, affinity, resourceProperties, allocations };
};

/** virtual:instance: slots of the requested sizes on hosts matching the query. */
export const virtualInstanceAdmission: ReservationAdmission<VirtualInstanceReservation, InstanceReservationRequest, VirtualInstanceChange> =
  {
    admit: (context, request) => {
      const id = context.newId();
      const allocations = carveSlots(context, id, request, null, false);
      const { amount, vcpus, memoryMb, diskGb, affinity, resourceProperties } = request;
      return {
        id,
        resourceId: context.newId(),
        resourceType: 'virtual:instance',
        amount,
        vcpus,
        memoryMb,
        diskGb,
        affinity,
        resourceProperties,
        allocations,
      };
    },
    readmit: readmitInstances,
    heal: healSlots,
    supply: slotSupply,
    release: releaseSlots,
  };

/** A flavor request as slots of the flavor's sizes (404 for a flavor the caller cannot see). */
const flavorSlots = (context: AdmissionContext, request: FlavorInstanceReservationRequest) => {
  const flavor = visibleFlavor(context.flavors, request.flavorId, context.caller);
  const sizes = { vcpus: flavor.vcpus, memoryMb: flavor.ram, diskGb: flavor.disk + flavor.ephemeral };
  return {
    flavor,
    sizes,
    slots: buildInstanceRequest({ amount: request.amount, affinity: request.affinity, ...sizes, resourceProperties: '' }),
  };
};

const admitFlavorInstances = (context: AdmissionContext, request: FlavorInstanceReservationRequest): FlavorInstanceReservation => {
  const id = context.newId();
  const { flavor, sizes, slots } = flavorSlots(context, request);
  const allocations = carveSlots(context, id, slots, null, false);
  return {
    id,
    resourceId: context.newId(),
    resourceType: 'flavor:instance',
    amount: request.amount,
    ...sizes,
    affinity: request.affinity,
    resourceProperties: flavorResourceProperties(flavor),
    sourceFlavorId: flavor.id,
    extraSpecs: flavor.extraSpecs,
    allocations,
  };
};

const readmitFlavorInstances = (
  context: AdmissionContext,
  reservation: FlavorInstanceReservation,
  patch: FlavorInstanceChange | undefined,
  started: boolean,
): FlavorInstanceReservation => {
  checkFlavorUnchanged(reservation, patch?.flavorId ?? null);
  const amount = checkAmount(patch?.amount ?? reservation.amount);
  const affinity = changedAffinity(patch, reservation.affinity);
  if (started) checkStartedInstanceChange(reservation, { amount, affinity });
  const { vcpus, memoryMb, diskGb } = reservation;
  const slots = buildInstanceRequest({ amount, vcpus, memoryMb, diskGb, affinity, resourceProperties: '' });
  const allocations = carveSlots(context, reservation.id, slots, reservation, started);
  return { ...reservation, amount, affinity, allocations };
};

/** flavor:instance: slots of a catalog flavor's sizes, its extra specs kept for the private flavor made at start. */
export const flavorInstanceAdmission: ReservationAdmission<
  FlavorInstanceReservation,
  FlavorInstanceReservationRequest,
  FlavorInstanceChange
> = {
  admit: admitFlavorInstances,
  readmit: readmitFlavorInstances,
  heal: healSlots,
  supply: (context, request) => slotSupply(context, flavorSlots(context, request).slots),
  release: releaseSlots,
};
