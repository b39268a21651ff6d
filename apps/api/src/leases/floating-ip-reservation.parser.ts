import { invalid } from '#domain/index.js';
import { checkAmount } from '#plugins/admission/amount.js';
import { type FloatingIpReservationRequest, parseRequiredFloatingIps } from '#plugins/floating-ip/floating-ip-reservation.request.js';
import { canonicalUuid } from '../http/text.validators.js';

/** `networkId` as the DTO accepted it (a UUID); kept in lower case so that one network is one id. */
export const buildFloatingIpRequest = (networkId: string, amount: number, required: readonly string[]): FloatingIpReservationRequest => {
  const network = canonicalUuid(networkId);
  if (network === null) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter network_id (must be a network UUID)');
  checkAmount(amount);
  return {
    resourceType: 'virtual:floatingip',
    networkId: network,
    amount,
    requiredFloatingIps: parseRequiredFloatingIps(required, amount),
  };
};
