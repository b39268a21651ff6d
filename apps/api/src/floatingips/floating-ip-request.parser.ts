import { invalid } from '#domain/index.js';
import { validateBody } from '../http/validate-body.js';
import type { NewFloatingIp } from '#application/floating-ips/floating-ip.use-cases.js';
import { RegisterFloatingIpDto } from './floating-ip.dto.js';
import { canonicalIpAddress } from '#plugins/floating-ip/ip-address.js';

export const parseRegisterFloatingIp = (raw: unknown): NewFloatingIp => {
  const dto = validateBody(RegisterFloatingIpDto, raw);
  const address = canonicalIpAddress(dto.floating_ip_address);
  if (address === null) {
    throw invalid(
      'INVALID_IP_FORMAT',
      `Malformed parameter floating_ip_address: ${dto.floating_ip_address} is not an IPv4 or IPv6 address`,
    );
  }
  // a UUID (the DTO checked it), in lower case so that one network is one id
  return { networkId: dto.floating_network_id.toLowerCase(), address };
};
