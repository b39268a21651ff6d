/**
 * What each kind of field holds once a transport has validated and read it. The transports (apps/api: the REST DTOs, the OpenAPI
 * schemas, the GraphQL inputs) know how each kind is checked, documented and read, with Blazar's messages; a type's module only says
 * which kind each of its fields is.
 */
export interface WireKinds {
  /** An integer, or a string holding one (Blazar's clients send both). */
  readonly count: number;
  readonly text: string;
  /** One of the field's `options`. */
  readonly choice: string;
  readonly texts: readonly string[];
  /** A UUID, kept in lower case so that one id is one resource. */
  readonly uuid: string;
  /** Nova's flavor id: a non-negative integer (kept as its decimal string) or a name-like string. */
  readonly 'flavor-id': string;
  /** true, false or null (None), also as the strings python-blazarclient sends ("True", "False", "None"). */
  readonly 'bool-or-none': boolean | null;
}

export type WireKind = keyof WireKinds;
export type WireValue = WireKinds[WireKind];

interface FieldBase<N extends string, F extends string> {
  /** Blazar's name: in requests, in messages, in the OpenAPI schema and the GraphQL input. */
  readonly name: N;
  /** The domain's name: in the domain's messages (`{field:memoryMb}`), in a request's values and in a change. */
  readonly field: F;
  /** What the field holds, in a new reservation and in a change (OpenAPI); absent: the kind's own words. */
  readonly description?: string;
  /** What the field holds in a new reservation (OpenAPI), where it says more than `description` (the bounds a new one is held to). */
  readonly requestDescription?: string;
  /** As a query parameter of GET /v1/availability, what it is; absent: not one (a list, or no bearing on availability). */
  readonly query?: string;
}

/** One field of a type's reservation on the wire. */
export type WireField<N extends string = string, F extends string = string> =
  | (FieldBase<N, F> & { readonly kind: Exclude<WireKind, 'choice' | 'uuid'> })
  | (FieldBase<N, F> & { readonly kind: 'choice'; readonly options: readonly string[] })
  /** `of`: what the UUID names, in the message that refuses another value ("must be a network UUID"). */
  | (FieldBase<N, F> & { readonly kind: 'uuid'; readonly of: string });

type ValueOf<W> = W extends { readonly kind: 'choice'; readonly options: readonly (infer O)[] }
  ? O
  : W extends { readonly kind: infer K extends WireKind }
    ? WireKinds[K]
    : never;

/** A new reservation's values by the domain's names: a required field's value, or another's (null when absent). */
export type RequestValues<Fs extends readonly WireField[], R extends string> = {
  readonly [W in Fs[number] as W['field']]: W['name'] extends R ? ValueOf<W> : ValueOf<W> | null;
};

/** A field a change sets (`value` may itself be null, e.g. affinity) or leaves alone (null). */
export type Change<T> = { readonly value: T } | null;

/** A change of one reservation by the domain's names: null leaves a field alone; a kind whose values include null is wrapped. */
export type ChangeOf<Fs extends readonly WireField[]> = {
  readonly [W in Fs[number] as W['field']]: null extends ValueOf<W> ? Change<ValueOf<W>> : ValueOf<W> | null;
};

/** A new reservation's fields as a transport validated and read them, by the domain's names; an absent optional field is null. */
export type WireValues = Readonly<Record<string, WireValue | null>>;

/** The fields a change gives, as a transport validated and read them, by the domain's names; a kind whose values include null wrapped. */
export type WireChanges = Readonly<Record<string, WireValue | { readonly value: WireValue }>>;

/** A type's reservation on the wire: Blazar's field names and how they become the type's request or change. */
export interface ReservationWire<Q, C> {
  /** The OpenAPI schema of such a reservation's fields: its name (also its DTO's) and what it is. */
  readonly schema: { readonly name: string; readonly description?: string };
  /**
   * Its fields, in the order the type lists them (in a change, in the GraphQL inputs, in GET /v1/availability's parameters). A
   * change may give any of them (the type's rules say what may really change); a field of another type is a 400.
   */
  readonly fields: readonly WireField[];
  /** The fields a new reservation must give, in the order they are checked (upstream's), before the others. */
  readonly required: readonly string[];
  /** The request for a new reservation's fields, checked as upstream's plugin checks them. */
  request(values: WireValues): Q;
  /** The change a reservation's given fields make (each field absent from `changes` is left alone). */
  change(changes: WireChanges): C;
}

/** The change type of a wire. */
export type ChangeOfWire<W> = W extends ReservationWire<unknown, infer C> ? C : never;

/**
 * A type's wire, its request's and change's values typed by its own fields: a field the request or the admission reads that the
 * wire does not declare (or declares of another kind) does not compile.
 */
export const reservationWire = <const Fs extends readonly WireField[], const R extends Fs[number]['name'], Q>(wire: {
  readonly schema: ReservationWire<Q, ChangeOf<Fs>>['schema'];
  readonly fields: Fs;
  readonly required: readonly R[];
  readonly request: (values: RequestValues<Fs, R>) => Q;
}): ReservationWire<Q, ChangeOf<Fs>> => ({
  schema: wire.schema,
  fields: wire.fields,
  required: wire.required,
  request: (values) => wire.request(values as RequestValues<Fs, R>),
  change: (changes) =>
    Object.fromEntries(wire.fields.map(({ field }) => [field, Object.hasOwn(changes, field) ? changes[field] : null])) as ChangeOf<Fs>,
});
