import { type ReservationRules, invalidField } from '#domain/index.js';
import type { FloatingIpReservation } from './floating-ip.reservation.js';

/** What a change asks of a floating-IP reservation (null: left alone). */
export interface FloatingIpChange {
  readonly networkId: string | null;
  readonly requiredFloatingIps: readonly string[] | null;
}

/** A floating-IP reservation stays on its network, and its required addresses can only be cleared (400). */
export const checkFloatingIpChange = (current: FloatingIpReservation, change: FloatingIpChange): void => {
  if (change.networkId !== null && change.networkId !== current.networkId)
    throw invalidField('CANT_UPDATE_PARAMETER', '{field:networkId} cannot be updated');
  if (change.requiredFloatingIps !== null && change.requiredFloatingIps.length > 0) {
    throw invalidField('CANT_UPDATE_PARAMETER', '{field:requiredFloatingIps} can only be cleared (set to [])');
  }
};

/** A started floating-IP reservation keeps the addresses it holds: its amount cannot go below them (400). */
export const checkStartedFloatingIpAmount = (current: FloatingIpReservation, amount: number): void => {
  const held = current.allocations.length;
  if (amount < held) {
    throw invalidField(
      'CANT_UPDATE_PARAMETER',
      `The {field:amount} of a started floating IP reservation cannot go below the ${held} addresses it holds`,
    );
  }
};

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((item, i) => item === b[i]);

/** virtual:floatingip: the rules above; hosts never hold its addresses, so nothing heals it. */
export const floatingIpRules: ReservationRules<FloatingIpReservation> = {
  checkChange: (current, next, started) => {
    const required = sameList(next.requiredFloatingIps, current.requiredFloatingIps) ? null : next.requiredFloatingIps;
    checkFloatingIpChange(current, { networkId: next.networkId, requiredFloatingIps: required });
    if (started) checkStartedFloatingIpAmount(current, next.amount);
  },
  healedHostIds: () => null,
  remindsBeforeEnd: () => false,
};
