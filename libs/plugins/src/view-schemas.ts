import type { ReservationViewBase } from '#read-model/index.js';

/** The fields a type's view shows beyond every reservation's (ReservationViewBase). */
export type OwnViewFields<V> = Exclude<keyof V, keyof ReservationViewBase>;

export type GraphqlScalar = 'String' | 'Int' | 'Float' | 'Boolean' | 'ID';

/** One field of a GraphQL object type, as plain data (apps/api declares it): `[scalar]` is a list of non-null values. */
export interface GraphqlField {
  readonly type: GraphqlScalar | readonly [GraphqlScalar];
  readonly nullable?: true;
  readonly description?: string;
}

export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'null';

/** The JSON Schema (2020-12, as OpenAPI 3.1 has them) of one field of a view: the part of it the views use. */
export interface FieldSchema {
  readonly type: JsonType | JsonType[];
  readonly format?: 'uuid';
  readonly minimum?: number;
  readonly items?: FieldSchema;
  readonly description?: string;
}
