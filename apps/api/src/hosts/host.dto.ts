import { IsBoolean, IsDefined, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsIntLike } from '../http/int-like.js';

const malformed = (name: string) => ({ message: `Malformed parameter ${name}` });

/**
 * POST /v1/os-hosts in standalone mode: the capacity Nova would report comes from the body; every
 * other key is an extra capability, as upstream treats unknown keys.
 */
export class RegisterHostDto {
  @IsDefined({ message: 'Missing parameter name' })
  @IsString(malformed('name'))
  @MaxLength(255, malformed('name'))
  name!: string;

  @IsOptional() @IsIntLike(malformed('vcpus')) vcpus?: number | string;
  @IsOptional() @IsIntLike(malformed('memory_mb')) memory_mb?: number | string;
  @IsOptional() @IsIntLike(malformed('local_gb')) local_gb?: number | string;
  @IsOptional() @IsIntLike(malformed('hypervisor_version')) hypervisor_version?: number | string;
  @IsOptional() @IsString(malformed('hypervisor_type')) hypervisor_type?: string;
  @IsOptional() @IsString(malformed('cpu_info')) cpu_info?: string;
  @IsOptional() @IsString(malformed('service_name')) service_name?: string;
  @IsOptional() @IsString(malformed('availability_zone')) availability_zone?: string;
}

export const HOST_FIELD_KEYS: readonly string[] = [
  'name', 'id', 'vcpus', 'memory_mb', 'local_gb', 'hypervisor_version', 'hypervisor_type', 'cpu_info', 'service_name', 'availability_zone',
];

export class PropertyPrivacyDto {
  @IsDefined({ message: 'Missing parameter private' })
  @IsBoolean({ message: 'Malformed parameter private: must be true or false' })
  private!: boolean;
}
