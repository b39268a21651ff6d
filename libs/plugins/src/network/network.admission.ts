import { toMs } from '#domain/index.js';
import { type AdmissionContext, type ReservationAdmission, bookingWindow } from '../admission/admission.port.js';
import { networkSegments } from './network.kind.js';
import { allocateNetworkSegment, networkSupply, notEnoughNetworksError } from './network-allocation.policy.js';
import {
  type NetworkReservationRequest,
  checkNetworkBeforeEnd,
  checkNetworkDescription,
  checkNetworkName,
  networkQuery,
} from './network-reservation.request.js';
import type { NetworkAllocation, NetworkReservation } from './network.reservation.js';
import { checkStartedNetworkChange } from './network.rules.js';
import type { NetworkChange } from './network.wire.js';

const windowMs = ({ schedule }: AdmissionContext) => ({ start: toMs(schedule.startDate), end: toMs(schedule.endDate) });

/** Chooses a segment with the network policy and books it (or moves the reservation's current one, or trades it for another). */
const chooseSegment = (
  context: AdmissionContext,
  id: string,
  request: NetworkReservationRequest,
  current: NetworkReservation | null,
  started: boolean,
): NetworkAllocation[] => {
  const { calendars } = context;
  const held = current?.allocations[0]?.networkId;
  const result = allocateNetworkSegment(
    {
      query: request.query,
      window: windowMs(context),
      cleaningTimeMs: calendars.cleaningTimeMs,
      ...(held === undefined ? {} : { reservationId: id, current: held, keepCurrent: started }),
    },
    calendars.snapshotsOf(networkSegments),
  );
  if (!result.ok) throw notEnoughNetworksError(result);
  const window = bookingWindow(context, id, request.propertyNames);
  const chosen = result.allocation.networkId;
  if (held !== undefined && held !== chosen) calendars.releaseResource('network', held, id);
  if (held === chosen) calendars.moveResource('network', chosen, window);
  else calendars.bookResource('network', chosen, window);
  return [result.allocation];
};

const changed = <T>(value: T | null | undefined, current: T): T => value ?? current;

const readmit = (
  context: AdmissionContext,
  reservation: NetworkReservation,
  patch: NetworkChange | undefined,
  started: boolean,
): NetworkReservation => {
  const networkName = checkNetworkName(changed(patch?.networkName, reservation.networkName));
  const networkDescription = checkNetworkDescription(changed(patch?.networkDescription, reservation.networkDescription));
  if (started) checkStartedNetworkChange(reservation, { networkName, networkDescription });
  const beforeEnd = checkNetworkBeforeEnd(changed(patch?.beforeEnd, reservation.beforeEnd));
  const networkProperties = changed(patch?.networkProperties, reservation.networkProperties);
  const resourceProperties = changed(patch?.resourceProperties, reservation.resourceProperties);
  const request: NetworkReservationRequest = {
    resourceType: 'network',
    networkName,
    networkDescription,
    networkProperties,
    resourceProperties,
    beforeEnd,
    ...networkQuery(networkProperties, resourceProperties),
  };
  const allocations = chooseSegment(context, reservation.id, request, reservation, started);
  const { query: _query, propertyNames: _names, ...fields } = request;
  return { ...reservation, ...fields, allocations };
};

/** `network`: one segment matching the queries; segments are not on hosts, so there is nothing to heal. */
export const networkAdmission: ReservationAdmission<NetworkReservation, NetworkReservationRequest, NetworkChange> = {
  admit: (context, request) => {
    const id = context.newId();
    const allocations = chooseSegment(context, id, request, null, false);
    const { query: _query, propertyNames: _names, ...fields } = request;
    return { id, resourceId: context.newId(), ...fields, allocations };
  },
  readmit,
  heal: () => null,
  supply: (context, request) =>
    networkSupply(
      { query: request.query, window: windowMs(context), cleaningTimeMs: context.calendars.cleaningTimeMs },
      context.calendars.snapshotsOf(networkSegments),
    ),
  release: (context, reservation) => {
    for (const { networkId } of reservation.allocations) context.calendars.releaseResource('network', networkId, reservation.id);
  },
};
