import { IsDefined, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsIntLike } from '../http/int-like.js';
import { IsNotBlank } from '../http/text.validators.js';
import { BOOLEAN_VALUES, IsExtraSpecs, IsFlavorId, IsNumberLike } from './flavor.validators.js';

const malformed = (name: string, why = '') => ({ message: `Malformed parameter ${name}${why}` });

/** The `flavor` object of POST /v1/flavors, as Nova's `POST /flavors` takes it (plus `extra_specs`). */
export class CreateFlavorDto {
  @IsDefined({ message: 'Missing parameter name' })
  @MaxLength(255, malformed('name'))
  @IsNotBlank(malformed('name', ' (must not be empty or blank)'))
  @IsString(malformed('name'))
  name!: string;

  @IsDefined({ message: 'Missing parameter vcpus' })
  @IsIntLike(malformed('vcpus', ' (must be an integer >= 1)'))
  vcpus!: number | string;

  @IsDefined({ message: 'Missing parameter ram' })
  @IsIntLike(malformed('ram', ' (must be an integer >= 1)'))
  ram!: number | string;

  @IsDefined({ message: 'Missing parameter disk' })
  @IsIntLike(malformed('disk', ' (must be an integer >= 0)'))
  disk!: number | string;

  @IsOptional()
  @IsFlavorId(malformed('id', ': an integer, or 1 to 255 letters, digits, ". _-", not starting or ending with a space'))
  id?: number | string | null;

  @IsOptional()
  @IsIntLike(malformed('OS-FLV-EXT-DATA:ephemeral', ' (must be an integer >= 0)'))
  'OS-FLV-EXT-DATA:ephemeral'?: number | string | null;

  @IsOptional()
  @IsIntLike(malformed('swap', ' (must be an integer >= 0)'))
  swap?: number | string | null;

  @IsOptional()
  @IsNumberLike(malformed('rxtx_factor', ' (must be a number > 0)'))
  rxtx_factor?: number | string | null;

  @IsOptional()
  @IsIn(BOOLEAN_VALUES, malformed('os-flavor-access:is_public', ' (must be true or false)'))
  'os-flavor-access:is_public'?: boolean | string | null;

  @IsOptional()
  @IsExtraSpecs(malformed('extra_specs', ': an object of strings (keys of 1 to 255 letters, digits, "-_:. "; values of at most 255 characters)'))
  extra_specs?: Record<string, string> | null;
}
