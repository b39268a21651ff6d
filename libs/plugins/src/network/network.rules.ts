import { type ReservationRules, invalidField } from '#domain/index.js';
import type { NetworkReservation } from './network.reservation.js';

/** A running reservation's Neutron network exists under its name and description: they cannot change under it (400). */
export const checkStartedNetworkChange = (
  current: NetworkReservation,
  next: Pick<NetworkReservation, 'networkName' | 'networkDescription'>,
): void => {
  if (next.networkName !== current.networkName) {
    throw invalidField('CANT_UPDATE_PARAMETER', '{field:networkName} of a started network reservation cannot be updated');
  }
  if (next.networkDescription !== current.networkDescription) {
    throw invalidField('CANT_UPDATE_PARAMETER', '{field:networkDescription} of a started network reservation cannot be updated');
  }
};

/**
 * `network`: anything may change while pending; once the lease runs its network keeps its name, description and segment
 * (its admission keeps the segment or refuses). Segments are not on hosts, so nothing heals them; `notify` reminds the tenant.
 */
export const networkRules: ReservationRules<NetworkReservation> = {
  checkChange: (current, next, started) => {
    if (started) checkStartedNetworkChange(current, next);
  },
  healedHostIds: () => null,
  remindsBeforeEnd: (reservation) => reservation.beforeEnd === 'notify',
};
