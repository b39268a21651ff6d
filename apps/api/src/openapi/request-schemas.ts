import type { Type } from '@nestjs/common';
import { HOST_VIEW_KEYS } from '#read-model/index.js';
import { AvailabilityQueryDto } from '../availability/availability.dto.js';
import { CreateFlavorDto } from '../flavors/flavor.dto.js';
import { RegisterFloatingIpDto } from '../floatingips/floating-ip.dto.js';
import { CAPABILITY_VALUE, HOST_FIELD_KEYS, PropertyPrivacyDto, RegisterHostDto, notNamed } from '../hosts/host.dto.js';
import { ScheduleMaintenanceDto } from '../maintenance/maintenance.dto.js';
import { CreateLeaseRequestDto } from '../lease-requests/lease-request.dto.js';
import { CreateLeaseDto, ReservationTypeDto, UpdateLeaseDto } from '../leases/lease.dto.js';
import { ReservationUpdateDto, reservationDto, reservationDtos } from '../leases/reservation.dto.js';
import { MAX_QUOTA_LIMIT, MAX_SHARES, MIN_SHARES, PRICE } from '#domain/index.js';
import { QUOTAS, USAGE_METRICS } from '#plugins/reservation-holdings.js';
import { RESERVATION_TYPES } from '#plugins/reservation-types.js';
import { type JsonSchema, ref } from './json-schema.js';

/** Every request DTO; @nestjs/swagger builds their schemas from the DTOs' decorators (openapi/dto-properties.ts). */
export const REQUEST_DTOS: readonly Type[] = [
  CreateLeaseDto,
  UpdateLeaseDto,
  ReservationTypeDto,
  ...reservationDtos(),
  ReservationUpdateDto,
  RegisterHostDto,
  PropertyPrivacyDto,
  ScheduleMaintenanceDto,
  CreateLeaseRequestDto,
  RegisterFloatingIpDto,
  CreateFlavorDto,
  AvailabilityQueryDto,
];

const reservationOfType = (type: string, dto: Type): JsonSchema => ({
  properties: { resource_type: { const: type } },
  allOf: [ref(dto.name)],
});

/**
 * Request bodies that no single DTO validates: a reservation is checked by the DTO of its
 * `resource_type`, Nova's flavor envelope holds the DTO, and a host update is read key by key by
 * parseUpdateHost.
 */
export const COMPOSED_REQUEST_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  FlavorCreate: {
    type: 'object',
    description: "Nova's envelope; a missing `flavor` is refused (400 `Missing parameter flavor`), and so is any other key.",
    properties: { flavor: ref(CreateFlavorDto.name) },
    required: ['flavor'],
    additionalProperties: false,
  },
  WebhookCreate: {
    type: 'object',
    description:
      "A webhook for the caller's project (docs/webhooks.md). Checked by its request parser: each field is named in a 400, an unknown one too.",
    properties: {
      url: {
        type: 'string',
        format: 'uri',
        maxLength: 2048,
        description:
          'http or https, no user name or password, no fragment; its host must be an allowed target (LEASEHOLD_WEBHOOK_ALLOWED_TARGETS).',
      },
      event_types: {
        type: 'array',
        items: { type: 'string' },
        description: '1 to 64 public lease event types (`lease.*`, `reservation.*` of docs/events.md), or `*`.',
      },
      secret: { type: 'string', minLength: 16, maxLength: 256, description: 'Signs every delivery (HMAC-SHA256); never shown again.' },
    },
    required: ['url', 'event_types', 'secret'],
    additionalProperties: false,
  },
  ReservationRequest: {
    description: 'One reservation of a new lease: `resource_type` is checked first, then the parameters of that type.',
    allOf: [ref(ReservationTypeDto.name)],
    oneOf: RESERVATION_TYPES.map(({ resourceType }) => reservationOfType(resourceType, reservationDto(resourceType))),
  },
  FairShareSet: {
    type: 'object',
    description: "A project's fair-share shares: a weight relative to every other project's (default 1).",
    properties: { shares: { type: 'number', minimum: MIN_SHARES, maximum: MAX_SHARES } },
    required: ['shares'],
    additionalProperties: false,
  },
  QuotaSet: {
    type: 'object',
    description: "A project's quotas to set: each an integer limit, or null to clear it back to the configured default.",
    properties: Object.fromEntries(
      QUOTAS.dimensions.map(({ field, words }) => [
        field,
        {
          description: `${words[0]?.toUpperCase()}${words.slice(1)}.`,
          anyOf: [{ type: 'integer', minimum: 0, maximum: MAX_QUOTA_LIMIT }, { type: 'null' }],
        },
      ]),
    ),
    minProperties: 1,
    additionalProperties: false,
  },
  RateCardPublish: {
    type: 'object',
    description: 'A rate card version (docs/usage.md): prices per unit-hour by metric; a metric left out is free.',
    properties: {
      currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code.' },
      effective_from: { type: 'string', description: '`YYYY-MM-DD HH:MM` (UTC) or ISO 8601 with a zone.' },
      prices: ref('RateCardPrices'),
      capability_prices: {
        type: 'array',
        description:
          "At most 100; the first entry whose capability value the host has wins, and overrides the card's prices only for the metrics it names.",
        items: {
          type: 'object',
          properties: {
            capability: { type: 'string', minLength: 1, maxLength: 64 },
            value: { type: 'string', maxLength: 255 },
            prices: { allOf: [ref('RateCardPrices')], minProperties: 1 },
          },
          required: ['capability', 'value', 'prices'],
          additionalProperties: false,
        },
      },
    },
    required: ['currency', 'effective_from', 'prices'],
    additionalProperties: false,
  },
  RateCardPrices: {
    type: 'object',
    properties: Object.fromEntries(
      USAGE_METRICS.metrics.map((metric) => [
        metric,
        {
          description: `Price per hour of ${USAGE_METRICS.counts[metric]}.`,
          anyOf: [
            { type: 'string', pattern: PRICE.source },
            { type: 'number', minimum: 0 },
          ],
        },
      ]),
    ),
    additionalProperties: false,
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
