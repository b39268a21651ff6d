import type { ReservationBase, ReservationTypeMap, ResourceType } from '#domain/index.js';
import type { ReservationViewBase, ReservationViewMap } from '#read-model/index.js';
import { floatingIpType } from './floating-ip/floating-ip.type.js';
import { flavorInstanceType } from './instance/flavor-instance.type.js';
import { virtualInstanceType } from './instance/virtual-instance.type.js';
import { networkType } from './network/network.type.js';
import { physicalHostType } from './physical-host/physical-host.type.js';
import type { ReservationType } from './reservation-type.js';

/** Every reservation type Leasehold offers, in the order it lists them (GET /v1/plugins). The one list to extend. */
const MODULES = [physicalHostType, virtualInstanceType, flavorInstanceType, floatingIpType, networkType] as const;

type Registered = (typeof MODULES)[number];

type RequestOfModule<M> = M extends ReservationType<infer _T, infer Q, infer _C> ? Q : never;
type ChangeOfModule<M> = M extends ReservationType<infer _T, infer _Q, infer C> ? C : never;

/** A validated request for a new reservation, of any registered type. */
export type ReservationRequest = RequestOfModule<Registered>;

/** A change of an existing reservation, of any registered type (its wire's). */
export type ReservationChange = ChangeOfModule<Registered>;

/** The change of one type's reservations. */
export type ChangeOfType<T extends ResourceType> = ChangeOfModule<Extract<Registered, { readonly resourceType: T }>>;

/** The module of one type, as generic code handles it (the request, change and reservation of any type). */
export type AnyReservationType = ReservationType<ResourceType, ReservationRequest, ReservationChange>;

// every type of the domain's reservation union has its module: a type without one fails to compile here
type Unregistered = Exclude<ResourceType, Registered['resourceType']>;
const _complete: [Unregistered] extends [never] ? true : ['no module for', Unregistered] = true;

// each type's state enters the domain's map under its own resourceType, with what every reservation has
type Miskeyed = {
  [K in keyof ReservationTypeMap]: ReservationTypeMap[K] extends ReservationBase & { readonly resourceType: K } ? never : K;
}[keyof ReservationTypeMap];
const _keyed: [Miskeyed] extends [never] ? true : ['reservation state keyed under another type', Miskeyed] = true;

// each type's view enters the read model's map under a type it shows, with what every reservation view has
type Misviewed = {
  [K in keyof ReservationViewMap]: ReservationViewMap[K] extends ReservationViewBase
    ? K extends ReservationViewMap[K]['resource_type']
      ? never
      : K
    : K;
}[keyof ReservationViewMap];
const _viewed: [Misviewed] extends [never] ? true : ['reservation view keyed under a type it does not show', Misviewed] = true;

/**
 * The registered modules as generic code walks them. The one widening: each module's members take its
 * own type's reservations and requests, which TypeScript cannot pair with the type through a union;
 * generic code only ever hands a module reservations and requests of its own type (`reservationType`).
 */
export const RESERVATION_TYPES: readonly AnyReservationType[] = MODULES.map((module) => module as unknown as AnyReservationType);

const BY_TYPE: ReadonlyMap<string, AnyReservationType> = new Map(RESERVATION_TYPES.map((module) => [module.resourceType, module]));

/** The module of a registered type (the domain's union admits no other). */
export const reservationType = (type: ResourceType): AnyReservationType => {
  const module = BY_TYPE.get(type);
  if (module === undefined) throw new Error(`No module for the ${type} reservation type`);
  return module;
};

/** Whether a `resource_type` from the wire names a registered type. */
export const isResourceType = (value: string): value is ResourceType => BY_TYPE.has(value);
