import type { HostSize, QuotaAmounts, Reservation, ReservationRules, ResourceType, SlotDemand, UsageRates } from '#domain/index.js';
import type { ReservationAdmission } from './admission/admission.port.js';
import type { ReservationEffects } from './effects.port.js';
import type { ReservationWire } from './reservation-wire.js';
import type { OpenStackEffectsOptions } from './openstack/effects/openstack-effects.options.js';
import type { OpenStackClients } from './openstack/effects/openstack-effects.support.js';
import type { StandaloneCloud } from './standalone/standalone-cloud.js';
import type { StandaloneEffectsOptions } from './standalone/standalone-effects.options.js';

/** The reservation state of one type (the domain's union narrowed by its discriminant). */
export type ReservationOf<T extends ResourceType> = Extract<Reservation, { readonly resourceType: T }>;

/** How a type is described at GET /v1/plugins (upstream's plugin name and title where upstream has the type). */
export interface PluginDescription {
  readonly name: string;
  readonly title: string;
  readonly description: string;
}

/**
 * One resource whose calendar carries a reservation: a host (whole, or `slots` of it) or a floating IP.
 * These are the calendars (resource kinds) of the domain's consistency boundary, shared by the types.
 */
export type BookedResource =
  { readonly kind: 'host'; readonly id: string; readonly slots: SlotDemand | null } | { readonly kind: 'floatingip'; readonly id: string };

/** How quotas count a type's reservation. */
export interface ReservationTypeQuota<R extends Reservation> {
  /** What the reservation holds of each held quota at every instant of its lease's window. */
  amounts(reservation: R): QuotaAmounts;
}

/** How usage meters a type's reservation. */
export interface ReservationTypeUsage<R extends Reservation> {
  /** What each resource the reservation holds accrues per unit of time while it runs, by resource id. */
  rates(reservation: R, hostSize: (hostId: string) => HostSize): ReadonlyMap<string, UsageRates>;
  /**
   * Which of a rate card's prices its usage is charged at: `host-capabilities`, the first capability entry the
   * resource's host matches, else the card's own (its resources are hosts); `card`, always the card's own.
   */
  readonly prices: 'host-capabilities' | 'card';
}

/** A type's side effects on each kind of cloud; the reactor alone calls what these make. */
export interface ReservationTypeEffects<R extends Reservation> {
  openstack(clients: OpenStackClients, options: OpenStackEffectsOptions): ReservationEffects<R>;
  standalone(cloud: StandaloneCloud, options: StandaloneEffectsOptions): ReservationEffects<R>;
}

/**
 * Everything one reservation type adds to Leasehold. Generic code (the lease decider, the use cases, the
 * reactor, the API) walks the registry of these (reservation-types.ts) and never branches on a type; a new
 * type that leaves a member out does not compile. Its reservation state enters the domain's union by
 * augmenting `ReservationTypeMap` (libs/domain/src/lease/reservation-type-map.ts) from the type's folder.
 * docs/architecture.md, "Adding a reservation type".
 */
export interface ReservationType<T extends ResourceType, Q extends { readonly resourceType: T }, C> {
  readonly resourceType: T;
  readonly plugin: PluginDescription;
  /** Its reservation on the wire: Blazar's field names, kinds and words, its request `Q` and its change `C` (reservation-wire.ts). */
  readonly wire: ReservationWire<Q, C>;
  /** The lease decider's rules for the type: what may change while pending or active, healing, the end reminder. */
  readonly rules: ReservationRules<ReservationOf<T>>;
  /** What the reservation books on the calendars: every resource it holds, in the order it holds them. */
  resources(reservation: ReservationOf<T>): readonly BookedResource[];
  readonly quota: ReservationTypeQuota<ReservationOf<T>>;
  readonly usage: ReservationTypeUsage<ReservationOf<T>>;
  /** Pure decisions over the calendars: choose, book, change, heal and release what a reservation holds. */
  readonly admission: ReservationAdmission<ReservationOf<T>, Q, C>;
  readonly effects: ReservationTypeEffects<ReservationOf<T>>;
}
