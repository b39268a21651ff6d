import type { DateTime } from 'luxon';
import { invalid } from '#domain/index.js';
import type { LeaseRequestInput } from '#application/lease-requests/lease-request.use-cases.js';
import { parseDuration } from '../availability/availability-request.parser.js';
import { parseBlazarDate } from '../http/blazar-dates.js';
import { validateExtensionBody } from '../http/validate-body.js';
import { parseReservationValues } from '../leases/lease-request.parser.js';
import { CreateLeaseRequestDto } from './lease-request.dto.js';

const optionalDate = (value: unknown, now: DateTime): string | null =>
  value === undefined || value === null ? null : parseBlazarDate(value, now);

/** POST /v1/lease-requests body -> request: each reservation judged as POST /v1/leases judges it, the duration as availability's. */
export const parseLeaseRequest = (body: unknown, now: DateTime): LeaseRequestInput => {
  const dto = validateExtensionBody(CreateLeaseRequestDto, body);
  if (dto.reservations.length === 0) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter reservations (at least one reservation)');
  return {
    name: dto.name,
    durationMinutes: parseDuration(dto.duration),
    notBefore: optionalDate(dto.not_before, now),
    startBy: optionalDate(dto.start_by, now),
    reservations: dto.reservations.map((raw) => {
      const { type, values } = parseReservationValues(raw);
      return { resourceType: type, values };
    }),
  };
};
