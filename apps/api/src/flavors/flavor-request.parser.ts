import { invalid } from '#domain/index.js';
import { MAX_INT32, toIntLike } from '../http/int-like.js';
import { refuseUnknownFields, requireObject, validateExtensionBody } from '../http/validate-body.js';
import type { NewFlavor } from '#application/flavors/flavor.use-cases.js';
import { CreateFlavorDto } from './flavor.dto.js';
import { toBoolean, toFlavorId, toNumberLike } from './flavor.validators.js';

/** An optional field sent as null is left at its default, as an absent one. */
const given = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

/** Nova's largest rxtx_factor (a 32-bit float). */
export const MAX_RXTX_FACTOR = 3.40282e38;

/** A value the DTO validated as int-like, at most Nova's limit (its columns are 32-bit); the lower bounds are the catalog's. */
const int = (name: string, value: number | string | null | undefined, absent: number): number => {
  const count = given(value) ? (toIntLike(value) ?? Number.NaN) : absent;
  if (count > MAX_INT32) throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${name} (must be an integer <= ${MAX_INT32})`);
  return count;
};

const rxtxFactor = (value: number | string | null | undefined): number => {
  const factor = given(value) ? (toNumberLike(value) ?? Number.NaN) : 1;
  if (factor > MAX_RXTX_FACTOR)
    throw invalid('MALFORMED_PARAMETER', `Malformed parameter rxtx_factor (must be a number <= ${MAX_RXTX_FACTOR})`);
  return factor;
};

/**
 * POST /v1/flavors: `{"flavor": {...}}` as Nova takes it (an unknown key, there or in `flavor`, is refused as Nova's schema refuses it);
 * sizes are checked by the catalog (Nova's rules).
 */
export const parseCreateFlavor = (raw: unknown): NewFlavor => {
  const body = requireObject(raw);
  refuseUnknownFields(body, ['flavor']);
  if (body.flavor === undefined || body.flavor === null) throw invalid('MISSING_PARAMETER', 'Missing parameter flavor');
  const dto = validateExtensionBody(CreateFlavorDto, body.flavor, ['flavor'], 'parameter flavor');
  return {
    id: given(dto.id) ? toFlavorId(dto.id) : null,
    name: dto.name,
    vcpus: int('vcpus', dto.vcpus, 0),
    ram: int('ram', dto.ram, 0),
    disk: int('disk', dto.disk, 0),
    ephemeral: int('OS-FLV-EXT-DATA:ephemeral', dto['OS-FLV-EXT-DATA:ephemeral'], 0),
    swap: int('swap', dto.swap, 0),
    rxtxFactor: rxtxFactor(dto.rxtx_factor),
    isPublic: given(dto['os-flavor-access:is_public']) ? toBoolean(dto['os-flavor-access:is_public']) : true,
    extraSpecs: { ...(dto.extra_specs ?? {}) },
  };
};
