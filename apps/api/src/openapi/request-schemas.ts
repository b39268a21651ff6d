import type { Type } from '@nestjs/common';
import { HOST_VIEW_KEYS } from '#read-model/index.js';
import { AvailabilityQueryDto } from '../availability/availability.dto.js';
import { CreateFlavorDto } from '../flavors/flavor.dto.js';
import { RegisterFloatingIpDto } from '../floatingips/floating-ip.dto.js';
import { CAPABILITY_VALUE, HOST_FIELD_KEYS, PropertyPrivacyDto, RegisterHostDto, notNamed } from '../hosts/host.dto.js';
import {
  CreateLeaseDto,
  FlavorInstanceReservationDto,
  FloatingIpReservationDto,
  HostReservationDto,
  InstanceReservationDto,
  ReservationTypeDto,
  ReservationUpdateDto,
  UpdateLeaseDto,
} from '../leases/lease.dto.js';
import { type JsonSchema, ref } from './json-schema.js';

/** Every request DTO; @nestjs/swagger builds their schemas from the DTOs' decorators (openapi/dto-properties.ts). */
export const REQUEST_DTOS: readonly Type[] = [
  CreateLeaseDto,
  UpdateLeaseDto,
  ReservationTypeDto,
  HostReservationDto,
  InstanceReservationDto,
  FlavorInstanceReservationDto,
  FloatingIpReservationDto,
  ReservationUpdateDto,
  RegisterHostDto,
  PropertyPrivacyDto,
  RegisterFloatingIpDto,
  CreateFlavorDto,
  AvailabilityQueryDto,
];

const reservationOfType = (type: string, dto: Type): JsonSchema => ({ properties: { resource_type: { const: type } }, allOf: [ref(dto.name)] });

/**
 * Request bodies that no single DTO validates: a reservation is checked by the DTO of its
 * `resource_type`, Nova's flavor envelope holds the DTO, and a host update is read key by key by
 * parseUpdateHost.
 */
export const COMPOSED_REQUEST_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  FlavorCreate: {
    type: 'object',
    description: "Nova's envelope; a missing `flavor` is refused (400 `Missing parameter flavor`).",
    properties: { flavor: ref(CreateFlavorDto.name) },
    required: ['flavor'],
  },
  ReservationRequest: {
    description: 'One reservation of a new lease: `resource_type` is checked first, then the parameters of that type.',
    allOf: [ref(ReservationTypeDto.name)],
    oneOf: [
      reservationOfType('physical:host', HostReservationDto),
      reservationOfType('virtual:instance', InstanceReservationDto),
      reservationOfType('flavor:instance', FlavorInstanceReservationDto),
      reservationOfType('virtual:floatingip', FloatingIpReservationDto),
    ],
  },
  HostUpdate: {
    type: 'object',
    description:
      'Extra capabilities as top-level keys (e.g. `{"gpu": "true"}`) and/or `reservable`; a host field (`vcpus`, `name`...) cannot be updated (400). Not generated: checked by the request parser.',
    minProperties: 1,
    propertyNames: notNamed([...new Set([...HOST_VIEW_KEYS, ...HOST_FIELD_KEYS])].filter((key) => key !== 'reservable')),
    properties: { reservable: { anyOf: [{ type: 'boolean' }, { enum: ['true', 'false', 'True', 'False'] }] } },
    additionalProperties: CAPABILITY_VALUE,
  },
};
