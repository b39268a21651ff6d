import type { DateTime } from 'luxon';
import { type ResourceType, invalid, scheduleForCreate } from '#domain/index.js';
import type { ReservationPatch } from '#plugins/admission/reservation-patch.js';
import { RESERVATION_FIELDS } from '#plugins/reservation-fields.js';
import { type ReservationRequest, isResourceType, reservationType } from '#plugins/reservation-types.js';
import type { WireValues } from '#plugins/reservation-wire.js';
import { parseBlazarDate } from '../http/blazar-dates.js';
import { validateBody } from '../http/validate-body.js';
import type { CreateLeaseRequest, UpdateLeaseRequest } from '#application/leases/lease.commands.js';
import { CreateLeaseDto, ReservationTypeDto, UpdateLeaseDto } from './lease.dto.js';
import { changedValues, requestValues } from './reservation-fields.js';
import { ReservationUpdateDto, reservationDto } from './reservation.dto.js';

/** One reservation as POST /v1/leases validates it: its type, its fields as the type's wire read them, and the type's request. */
export const parseReservationValues = (raw: unknown): { type: ResourceType; values: WireValues; request: ReservationRequest } => {
  const { resource_type: type } = validateBody(ReservationTypeDto, raw, 'reservation');
  if (!isResourceType(type)) throw invalid('UNSUPPORTED_RESOURCE_TYPE', `The ${type} resource type is not supported`);
  const { wire } = reservationType(type);
  const values = requestValues(wire.fields, validateBody(reservationDto(type), raw, 'reservation'));
  return { type, values, request: wire.request(values) };
};

/** One reservation of a lease request, as POST /v1/leases validates it (also what an availability query asks about). */
export const parseReservation = (raw: unknown): ReservationRequest => parseReservationValues(raw).request;

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
  return { id: dto.id, resourceType: dto.resource_type ?? null, changes: changedValues(RESERVATION_FIELDS, dto) };
};

/** Whether a reservation patch says anything beyond naming its reservation (a resource_type is checked against it: 409 if another). */
const changesSomething = (patch: ReservationPatch): boolean => patch.resourceType !== null || Object.keys(patch.changes).length > 0;

/**
 * PUT /v1/leases/{id} body -> validated changes (null = unchanged). A body that changes nothing (`{}`,
 * only unknown keys, only nulls) is refused as upstream refuses it for hosts, rather than answered
 * 200 as if something had happened.
 */
export const parseUpdateLease = (body: unknown, now: DateTime): UpdateLeaseRequest => {
  const dto = validateBody(UpdateLeaseDto, body ?? {});
  const request: UpdateLeaseRequest = {
    name: dto.name ?? null,
    startDate: optionalDate(dto.start_date, now),
    endDate: optionalDate(dto.end_date, now),
    beforeEndDate: optionalDate(dto.before_end_date, now),
    reservations: (dto.reservations ?? []).map(parsePatch),
  };
  const { reservations, ...lease } = request;
  if (Object.values(lease).every((value) => value === null) && !reservations.some(changesSomething)) {
    throw invalid('NO_DATA', 'No data to update');
  }
  return request;
};
