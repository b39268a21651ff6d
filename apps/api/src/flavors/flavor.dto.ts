import { IsDefined, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsIntLike, MAX_INT32 } from '../http/int-like.js';
import { IsNotBlank } from '../http/text.validators.js';
import {
  Documented,
  DocumentedOptional,
  EXTRA_SPECS,
  FLAVOR_ID,
  INT_LIKE,
  NOVA_BOOLEAN,
  NUMBER_LIKE,
  RequestSchema,
  notBlank,
} from '../openapi/dto-properties.js';
import { BOOLEAN_VALUES, IsExtraSpecs, IsFlavorId, IsNumberLike } from './flavor.validators.js';

const malformed = (name: string, why = '') => ({ message: `Malformed parameter ${name}${why}` });

/** The `flavor` object of POST /v1/flavors, as Nova's `POST /flavors` takes it (plus `extra_specs`). */
@RequestSchema({
  description: "A flavor as Nova's `POST /flavors` takes it, plus `extra_specs`. Unknown keys are refused (400), as Nova refuses them.",
  additionalProperties: false,
})
export class CreateFlavorDto {
  @IsDefined({ message: 'Missing parameter name' })
  @MaxLength(255, malformed('name'))
  @IsNotBlank(malformed('name', ' (must not be empty or blank)'))
  @IsString(malformed('name'))
  @Documented(notBlank(255))
  name!: string;

  @IsDefined({ message: 'Missing parameter vcpus' })
  @IsIntLike(malformed('vcpus', ' (must be an integer >= 1)'))
  @Documented({ ...INT_LIKE, description: `1 to ${MAX_INT32}; an integer or a string holding one.` })
  vcpus!: number | string;

  @IsDefined({ message: 'Missing parameter ram' })
  @IsIntLike(malformed('ram', ' (must be an integer >= 1)'))
  @Documented({ ...INT_LIKE, description: `MiB, 1 to ${MAX_INT32}; an integer or a string holding one.` })
  ram!: number | string;

  @IsDefined({ message: 'Missing parameter disk' })
  @IsIntLike(malformed('disk', ' (must be an integer >= 0)'))
  @Documented({ ...INT_LIKE, description: `Root disk GiB, 0 to ${MAX_INT32}; an integer or a string holding one.` })
  disk!: number | string;

  @IsOptional()
  @IsFlavorId(malformed('id', ': an integer, or 1 to 255 letters, digits, ". _-", not starting or ending with a space'))
  @DocumentedOptional({ ...FLAVOR_ID, description: 'Default: a new UUID.' })
  id?: number | string | null;

  @IsOptional()
  @IsIntLike(malformed('OS-FLV-EXT-DATA:ephemeral', ' (must be an integer >= 0)'))
  @DocumentedOptional({ ...INT_LIKE, description: `Ephemeral disk GiB, 0 to ${MAX_INT32} (default 0).` })
  'OS-FLV-EXT-DATA:ephemeral'?: number | string | null;

  @IsOptional()
  @IsIntLike(malformed('swap', ' (must be an integer >= 0)'))
  @DocumentedOptional({ ...INT_LIKE, description: `Swap MiB, 0 to ${MAX_INT32} (default 0).` })
  swap?: number | string | null;

  @IsOptional()
  @IsNumberLike(malformed('rxtx_factor', ' (must be a number > 0)'))
  // the bound is the parser's MAX_RXTX_FACTOR (importing it here would close an import circle)
  @DocumentedOptional({ ...NUMBER_LIKE, description: 'Greater than 0, at most 3.40282e+38 (default 1).' })
  rxtx_factor?: number | string | null;

  @IsOptional()
  @IsIn(BOOLEAN_VALUES, malformed('os-flavor-access:is_public', ' (must be true or false)'))
  @DocumentedOptional({ ...NOVA_BOOLEAN, description: 'Default true; private flavors are shown to admins only.' })
  'os-flavor-access:is_public'?: boolean | string | null;

  @IsOptional()
  @IsExtraSpecs(
    malformed('extra_specs', ': an object of strings (keys of 1 to 255 letters, digits, "-_:. "; values of at most 255 characters)'),
  )
  @DocumentedOptional(EXTRA_SPECS)
  extra_specs?: Record<string, string> | null;
}
