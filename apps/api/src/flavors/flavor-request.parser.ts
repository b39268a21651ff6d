import { invalid } from '../../../../libs/domain/src/index.js';
import { toIntLike } from '../http/int-like.js';
import { requireObject, validateBody } from '../http/validate-body.js';
import type { NewFlavor } from '../../../../libs/application/src/flavors/flavor.use-cases.js';
import { CreateFlavorDto } from './flavor.dto.js';
import { toBoolean, toFlavorId, toNumberLike } from './flavor.validators.js';

/** An optional field sent as null is left at its default, as an absent one. */
const given = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

/** A value the DTO validated as int-like. */
const int = (value: number | string | null | undefined, absent: number): number => (given(value) ? (toIntLike(value) ?? Number.NaN) : absent);

/** POST /v1/flavors: `{"flavor": {...}}` as Nova takes it; sizes are checked by the catalog (Nova's rules). */
export const parseCreateFlavor = (raw: unknown): NewFlavor => {
  const body = requireObject(raw);
  if (body.flavor === undefined || body.flavor === null) throw invalid('MISSING_PARAMETER', 'Missing parameter flavor');
  const dto = validateBody(CreateFlavorDto, body.flavor, 'parameter flavor');
  return {
    id: given(dto.id) ? toFlavorId(dto.id) : null,
    name: dto.name,
    vcpus: int(dto.vcpus, 0),
    ram: int(dto.ram, 0),
    disk: int(dto.disk, 0),
    ephemeral: int(dto['OS-FLV-EXT-DATA:ephemeral'], 0),
    swap: int(dto.swap, 0),
    rxtxFactor: given(dto.rxtx_factor) ? (toNumberLike(dto.rxtx_factor) ?? Number.NaN) : 1,
    isPublic: given(dto['os-flavor-access:is_public']) ? toBoolean(dto['os-flavor-access:is_public']) : true,
    extraSpecs: { ...(dto.extra_specs ?? {}) },
  };
};
