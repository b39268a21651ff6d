import { IsDefined, IsString, MaxLength } from 'class-validator';
import { IsUuid } from '../http/text.validators.js';

const malformed = (name: string) => ({ message: `Malformed parameter ${name}` });

/** POST /v1/floatingips: an address of an external network, set aside for reservations. */
export class RegisterFloatingIpDto {
  /** A Neutron network id, in standalone mode too: a reservation names the same network. */
  @IsDefined({ message: 'Missing parameter floating_network_id' })
  @IsUuid({ message: 'Malformed parameter floating_network_id (must be a network UUID)' })
  @IsString(malformed('floating_network_id'))
  floating_network_id!: string;

  @IsDefined({ message: 'Missing parameter floating_ip_address' })
  @MaxLength(64, malformed('floating_ip_address'))
  @IsString(malformed('floating_ip_address'))
  floating_ip_address!: string;
}
