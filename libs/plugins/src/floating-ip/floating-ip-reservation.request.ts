import { invalidField, literal } from '#domain/index.js';
import { checkAmount } from '../admission/amount.js';
import { canonicalIpAddress } from './ip-address.js';

/** A validated virtual:floatingip reservation request (addresses canonical). */
export interface FloatingIpReservationRequest {
  readonly resourceType: 'virtual:floatingip';
  readonly networkId: string;
  readonly amount: number;
  readonly requiredFloatingIps: readonly string[];
}

/** No more required addresses than the reservation holds. */
export const checkRequiredCount = (addresses: readonly string[], amount: number): void => {
  if (addresses.length > amount) {
    throw invalidField(
      'INVALID_INPUT',
      `Invalid input for {field:requiredFloatingIps}: ${addresses.length} addresses required but amount is ${amount}`,
    );
  }
};

/** Canonical addresses of a reservation's required floating IPs: valid, distinct, no more than `amount`. */
export const parseRequiredFloatingIps = (addresses: readonly string[], amount: number): string[] => {
  const canonical = addresses.map((address) => {
    const ip = canonicalIpAddress(address);
    if (ip === null)
      throw invalidField(
        'MALFORMED_PARAMETER',
        `Malformed parameter {field:requiredFloatingIps}: ${literal(address)} is not an IP address`,
      );
    return ip;
  });
  if (new Set(canonical).size !== canonical.length)
    throw invalidField('MALFORMED_PARAMETER', 'Malformed parameter {field:requiredFloatingIps}: an address is repeated');
  checkRequiredCount(canonical, amount);
  return canonical;
};

/** A floating IP request: its amount checked, its required addresses canonical (the network id comes in lower case). */
export const buildFloatingIpRequest = (networkId: string, amount: number, required: readonly string[]): FloatingIpReservationRequest => ({
  resourceType: 'virtual:floatingip',
  networkId,
  amount: checkAmount(amount),
  requiredFloatingIps: parseRequiredFloatingIps(required, amount),
});
