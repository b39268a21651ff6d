import type { DateTime } from 'luxon';
import { invalid, scheduleForCreate } from '#domain/index.js';
import { type ReservationRequest, isResourceType } from '#plugins/reservation-types.js';
import type { ReservationPatch } from '#plugins/admission/reservation-patch.js';
import { buildFlavorInstanceRequest, buildInstanceRequest } from '#plugins/instance/instance-reservation.request.js';
import { buildHostRequest } from '#plugins/physical-host/host-reservation.request.js';
import type { Affinity } from '#plugins/instance/instance.reservation.js';
import type { BeforeEndAction } from '#plugins/physical-host/host.reservation.js';
import { toFlavorId } from '../flavors/flavor.validators.js';
import { parseBlazarDate } from '../http/blazar-dates.js';
import { toIntLike } from '../http/int-like.js';
import { validateBody } from '../http/validate-body.js';
import type { CreateLeaseRequest, UpdateLeaseRequest } from '#application/leases/lease.commands.js';
import { buildFloatingIpRequest } from './floating-ip-reservation.parser.js';
import {
  CreateLeaseDto,
  FlavorInstanceReservationDto,
  FloatingIpReservationDto,
  HostReservationDto,
  InstanceReservationDto,
  ReservationTypeDto,
  ReservationUpdateDto,
  UpdateLeaseDto,
  toAffinity,
} from './lease.dto.js';

const affinityOf = (value: unknown): Affinity => (value === undefined ? null : (toAffinity(value)?.value ?? null));

/** One reservation of a lease request, as POST /v1/leases validates it (also what an availability query asks about). */
export const parseReservation = (raw: unknown): ReservationRequest => {
  const { resource_type: type } = validateBody(ReservationTypeDto, raw, 'reservation');
  if (!isResourceType(type)) throw invalid('UNSUPPORTED_RESOURCE_TYPE', `The ${type} resource type is not supported`);
  switch (type) {
    case 'physical:host': {
      const dto = validateBody(HostReservationDto, raw, 'reservation');
      return buildHostRequest({
        min: toIntLike(dto.min) ?? 0,
        max: toIntLike(dto.max) ?? 0,
        hypervisorProperties: dto.hypervisor_properties ?? '',
        resourceProperties: dto.resource_properties ?? '',
        beforeEnd: (dto.before_end ?? 'default') as BeforeEndAction,
      });
    }
    case 'virtual:instance': {
      const dto = validateBody(InstanceReservationDto, raw, 'reservation');
      return buildInstanceRequest({
        amount: toIntLike(dto.amount) ?? 0,
        vcpus: toIntLike(dto.vcpus) ?? 0,
        memoryMb: toIntLike(dto.memory_mb) ?? 0,
        diskGb: toIntLike(dto.disk_gb) ?? 0,
        affinity: affinityOf(dto.affinity),
        resourceProperties: dto.resource_properties ?? '',
      });
    }
    case 'flavor:instance': {
      const dto = validateBody(FlavorInstanceReservationDto, raw, 'reservation');
      return buildFlavorInstanceRequest(toFlavorId(dto.flavor_id) ?? '', toIntLike(dto.amount) ?? 0, affinityOf(dto.affinity));
    }
    case 'virtual:floatingip': {
      const dto = validateBody(FloatingIpReservationDto, raw, 'reservation');
      return buildFloatingIpRequest(dto.network_id, toIntLike(dto.amount) ?? 0, dto.required_floatingips ?? []);
    }
    default: {
      const _never: never = type;
      return _never;
    }
  }
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
    amount: count(dto.amount),
    vcpus: count(dto.vcpus),
    memoryMb: count(dto.memory_mb),
    diskGb: count(dto.disk_gb),
    affinity: dto.affinity === undefined ? null : { value: affinityOf(dto.affinity) },
    flavorId: dto.flavor_id === undefined ? null : toFlavorId(dto.flavor_id),
    networkId: dto.network_id?.toLowerCase() ?? null,
    requiredFloatingIps: dto.required_floatingips ?? null,
  };
};

/** Whether a reservation patch says anything beyond naming its reservation (a resource_type is checked against it: 409 if another). */
const changesSomething = (patch: ReservationPatch): boolean => Object.entries(patch).some(([key, value]) => key !== 'id' && value !== null);

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
