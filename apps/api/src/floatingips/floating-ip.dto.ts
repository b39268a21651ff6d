import { IsDefined, IsString, MaxLength, MinLength } from 'class-validator';

const malformed = (name: string) => ({ message: `Malformed parameter ${name}` });

/** POST /v1/floatingips: an address of an external network, set aside for reservations. */
export class RegisterFloatingIpDto {
  @IsDefined({ message: 'Missing parameter floating_network_id' })
  @IsString(malformed('floating_network_id'))
  @MinLength(1, malformed('floating_network_id'))
  @MaxLength(255, malformed('floating_network_id'))
  floating_network_id!: string;

  @IsDefined({ message: 'Missing parameter floating_ip_address' })
  @IsString(malformed('floating_ip_address'))
  @MaxLength(64, malformed('floating_ip_address'))
  floating_ip_address!: string;
}
