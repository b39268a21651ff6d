import { IsDefined, IsString, MaxLength } from 'class-validator';
import { IsUuid } from '../http/text.validators.js';
import { Documented, RequestSchema, UUID } from '../openapi/dto-properties.js';

const malformed = (name: string) => ({ message: `Malformed parameter ${name}` });

/** POST /v1/floatingips: an address of an external network, set aside for reservations. */
@RequestSchema({ description: 'An address of an external network to set aside for reservations (standalone mode: any network id).' })
export class RegisterFloatingIpDto {
  /** A Neutron network id, in standalone mode too: a reservation names the same network. */
  @IsDefined({ message: 'Missing parameter floating_network_id' })
  @IsUuid({ message: 'Malformed parameter floating_network_id (must be a network UUID)' })
  @IsString(malformed('floating_network_id'))
  @Documented(UUID)
  floating_network_id!: string;

  @IsDefined({ message: 'Missing parameter floating_ip_address' })
  @MaxLength(64, malformed('floating_ip_address'))
  @IsString(malformed('floating_ip_address'))
  @Documented({
    type: 'string',
    maxLength: 64,
    description: 'An IPv4 or IPv6 address; IPv6 is stored in its canonical (RFC 5952) form.',
    examples: ['172.24.4.101'],
  })
  floating_ip_address!: string;
}
