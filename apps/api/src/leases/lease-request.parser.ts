import type { DateTime } from 'luxon';
import { type BeforeEndAction, RESOURCE_TYPES, type ResourceType, invalid, scheduleForCreate } from '../../../../libs/domain/src/index.js';
import { parseBlazarDate } from '../http/blazar-dates.js';
import { toIntLike } from '../http/int-like.js';
import { validateBody } from '../http/validate-body.js';
import type { CreateLeaseRequest, ReservationPatch, ReservationRequest, UpdateLeaseRequest } from '../write-side/lease-requests.js';
import { buildHostRequest } from './host-reservation.parser.js';
import { CreateLeaseDto, HostReservationDto, ReservationTypeDto, ReservationUpdateDto, UpdateLeaseDto } from './lease.dto.js';

const isResourceType = (value: string): value is ResourceType => (RESOURCE_TYPES as readonly string[]).includes(value);

const parseReservation = (raw: unknown): ReservationRequest => {
  const { resource_type: type } = validateBody(ReservationTypeDto, raw, 'reservation');
  if (!isResourceType(type)) throw invalid('UNSUPPORTED_RESOURCE_TYPE', `The ${type} resource type is not supported`);
  const dto = validateBody(HostReservationDto, raw, 'reservation');
  return buildHostRequest({
    min: toIntLike(dto.min) ?? 0,
    max: toIntLike(dto.max) ?? 0,
    hypervisorProperties: dto.hypervisor_properties ?? '',
    resourceProperties: dto.resource_properties ?? '',
    beforeEnd: (dto.before_end ?? 'default') as BeforeEndAction,
  });
};

const optionalDate = (value: unknown, now: DateTime): string | null =>
  value === undefined || value === null ? null : parseBlazarDate(value, now);

/** POST /v1/leases body -> validated request, in upstream's order of checks. */
export const parseCreateLease = (body: unknown, now: DateTime): CreateLeaseRequest => {
  const dto = validateBody(CreateLeaseDto, body);
  const raws = dto.reservations ?? [];
  for (const raw of raws) validateBody(ReservationTypeDto, raw, 'reservation');
  const schedule = {
    startDate: parseBlazarDate(dto.start_date, now),
    endDate: parseBlazarDate(dto.end_date, now),
    beforeEndDate: optionalDate(dto.before_end_date, now),
  };
  // dates are judged before reservation parameters, as upstream does
  scheduleForCreate(schedule, 0, now.toISO() as string);
  return { name: dto.name, ...schedule, reservations: raws.map(parseReservation) };
};

const parsePatch = (raw: unknown): ReservationPatch => {
  const dto = validateBody(ReservationUpdateDto, raw, 'reservation');
  const count = (value: number | string | undefined): number | null => (value === undefined ? null : toIntLike(value));
  return {
    id: dto.id,
    resourceType: dto.resource_type ?? null,
    min: count(dto.min),
    max: count(dto.max),
    hypervisorProperties: dto.hypervisor_properties ?? null,
    resourceProperties: dto.resource_properties ?? null,
    beforeEnd: (dto.before_end ?? null) as BeforeEndAction | null,
  };
};

/** PUT /v1/leases/{id} body -> validated changes (null = unchanged). */
export const parseUpdateLease = (body: unknown, now: DateTime): UpdateLeaseRequest => {
  const dto = validateBody(UpdateLeaseDto, body ?? {});
  return {
    name: dto.name ?? null,
    startDate: optionalDate(dto.start_date, now),
    endDate: optionalDate(dto.end_date, now),
    beforeEndDate: optionalDate(dto.before_end_date, now),
    reservations: (dto.reservations ?? []).map(parsePatch),
  };
};
