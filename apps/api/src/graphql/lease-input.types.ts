import type { Type } from '@nestjs/common';
import { Field, ID, InputType, Int, type ReturnTypeFunc } from '@nestjs/graphql';
import { RESERVATION_FIELDS } from '#plugins/reservation-fields.js';
import { RESERVATION_TYPES } from '#plugins/reservation-types.js';
import type { WireKind } from '#plugins/reservation-wire.js';
import { alternatives } from '../leases/reservation-fields.js';

/** The GraphQL type of each kind of reservation field; the REST parser judges the values as for a JSON client. */
const FIELD_TYPES: Readonly<Record<WireKind, ReturnTypeFunc>> = {
  count: () => Int,
  text: () => String,
  choice: () => String,
  texts: () => [String],
  uuid: () => String,
  'flavor-id': () => String,
  'bool-or-none': () => Boolean,
};

/** Every reservation type's fields (reservation-fields.ts) on an input class, each nullable, in the order types list them. */
const withReservationFields = (input: Type): void => {
  for (const field of RESERVATION_FIELDS) Field(FIELD_TYPES[field.kind], { nullable: true })(input.prototype as object, field.name);
};

/**
 * One reservation of a lease request, with POST /v1/leases's field names: which fields apply depends
 * on `resource_type`, and the REST request parser judges them (same checks, same messages).
 */
@InputType('ReservationInput')
export class ReservationInput {
  @Field(() => String, { description: alternatives(RESERVATION_TYPES.map(({ resourceType }) => resourceType)) }) resource_type!: string;
  readonly [field: string]: unknown;
}
withReservationFields(ReservationInput);

/** POST /v1/leases's body. Dates: `YYYY-MM-DD HH:MM` (UTC) or `now`. */
@InputType('CreateLeaseInput')
export class CreateLeaseInput {
  @Field(() => String) name!: string;
  @Field(() => String) start_date!: string;
  @Field(() => String) end_date!: string;
  @Field(() => String, { nullable: true }) before_end_date?: string | null;
  @Field(() => [ReservationInput], { nullable: true }) reservations?: ReservationInput[] | null;
}

/** A change of one reservation, named by its id, as in PUT /v1/leases/{id}. */
@InputType('ReservationChangeInput')
export class ReservationChangeInput {
  @Field(() => ID) id!: string;
  @Field(() => String, { nullable: true }) resource_type?: string | null;
  readonly [field: string]: unknown;
}
withReservationFields(ReservationChangeInput);

/** PUT /v1/leases/{id}'s body: what is given changes, the rest stays. */
@InputType('UpdateLeaseInput')
export class UpdateLeaseInput {
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field(() => String, { nullable: true }) start_date?: string | null;
  @Field(() => String, { nullable: true }) end_date?: string | null;
  @Field(() => String, { nullable: true }) before_end_date?: string | null;
  @Field(() => [ReservationChangeInput], { nullable: true }) reservations?: ReservationChangeInput[] | null;
}

/** POST /v1/availability's body: a lease request's reservations, how long, between when. */
@InputType('AvailabilityInput')
export class AvailabilityInput {
  @Field(() => [ReservationInput]) reservations!: ReservationInput[];
  @Field(() => String, { description: 'Minutes, or an ISO 8601 duration (PT2H)' }) duration!: string;
  @Field(() => String, { nullable: true }) not_before?: string | null;
  @Field(() => String, { nullable: true }) not_after?: string | null;
  @Field(() => Int, { nullable: true }) limit?: number | null;
}

/** The REST body these arguments stand for: absent fields left out, so the parser sees what a JSON client would send. */
export const restBody = (input: object): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(input).flatMap(([key, value]: [string, unknown]) => {
      if (value === undefined) return [];
      if (Array.isArray(value))
        return [[key, value.map((item: unknown) => (item !== null && typeof item === 'object' ? restBody(item) : item))]];
      return [[key, value]];
    }),
  );
