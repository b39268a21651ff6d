import type { Type } from '@nestjs/common';
import { IsDefined, IsOptional, IsString } from 'class-validator';
import type { ResourceType } from '#domain/index.js';
import { RESERVATION_FIELDS } from '#plugins/reservation-fields.js';
import { RESERVATION_TYPES } from '#plugins/reservation-types.js';
import type { WireKind } from '#plugins/reservation-wire.js';
import { Documented, DocumentedOptional, RequestSchema } from '../openapi/dto-properties.js';
import { DesignedAs, changeProperty, requestProperty } from './reservation-fields.js';

/** A reservation's body as its DTO passed it: Blazar's field names, values as sent. */
export type ReservationBody = Readonly<Record<string, unknown>>;

type Property = readonly [name: string, decorators: readonly PropertyDecorator[]];

/**
 * A class-validator DTO made from a type's fields (reservation-fields.ts): named `name` (its OpenAPI schema's name), its properties
 * checked and documented in the order given.
 */
const dtoClass = <T extends object>(name: string, properties: readonly Property[], description?: string): Type<T> => {
  const dto = { [name]: class {} }[name] as Type<T>;
  for (const [property, decorators] of properties) for (const decorate of decorators) decorate(dto.prototype as object, property);
  RequestSchema(description === undefined ? {} : { description })(dto);
  return dto;
};

/** Each registered type's DTO of its own fields, as POST /v1/leases reads them: the required ones first, in upstream's order. */
const RESERVATION_DTOS: ReadonlyMap<ResourceType, Type<ReservationBody>> = new Map(
  RESERVATION_TYPES.map(({ resourceType, wire }) => {
    const required = wire.required.map((name) => wire.fields.find((field) => field.name === name)).filter((field) => field !== undefined);
    const others = wire.fields.filter((field) => !required.includes(field));
    const properties = [
      ...required.map((field): Property => [field.name, requestProperty(field, true)]),
      ...others.map((field): Property => [field.name, requestProperty(field, false)]),
    ];
    return [resourceType, dtoClass<ReservationBody>(wire.schema.name, properties, wire.schema.description)];
  }),
);

/** The DTO of a registered type's own fields. */
export const reservationDto = (type: ResourceType): Type<ReservationBody> => {
  const dto = RESERVATION_DTOS.get(type);
  if (dto === undefined) throw new Error(`No DTO for the ${type} reservation type`);
  return dto;
};

/** Every type's DTO, in the registry's order (their OpenAPI schemas). */
export const reservationDtos = (): readonly Type<ReservationBody>[] => [...RESERVATION_DTOS.values()];

/** Kinds a change's checks reach last, so that a change with several bad fields keeps the first refusal it always had. */
const CHECKED_LAST: ReadonlySet<WireKind> = new Set(['text', 'choice']);

/** Every type's fields in the order a change's values are checked: as types list them, CHECKED_LAST's kinds after the others. */
const CHANGE_FIELDS = [
  ...RESERVATION_FIELDS.filter(({ kind }) => !CHECKED_LAST.has(kind)),
  ...RESERVATION_FIELDS.filter(({ kind }) => CHECKED_LAST.has(kind)),
];

/** PUT /v1/leases/{id}: a change of one reservation, found by `id`; every type's fields, in CHANGE_FIELDS' order. */
export const ReservationUpdateDto = dtoClass<{ readonly id: string; readonly resource_type?: string } & ReservationBody>(
  'ReservationUpdateDto',
  [
    [
      'id',
      [
        Documented({ type: 'string' }),
        IsString({ message: 'Malformed parameter id' }),
        IsDefined({ message: 'Missing parameter reservation ID' }),
      ],
    ],
    [
      'resource_type',
      [
        DesignedAs(String),
        DocumentedOptional({ type: 'string' }),
        IsString({ message: 'Malformed parameter resource_type' }),
        IsOptional(),
      ],
    ],
    ...CHANGE_FIELDS.map((field): Property => [field.name, changeProperty(field)]),
  ],
  'Changes to one reservation of the lease, found by `id`; `resource_type` cannot change (409); fields of another reservation type are refused (400).',
);
