import type {
  HostSize,
  QuotaAmounts,
  QuotaDeclarations,
  Reservation,
  ReservationRules,
  ResourceType,
  SlotDemand,
  UsageMetricDeclarations,
  UsageRates,
} from '#domain/index.js';
import type { ReservationViewBase, ReservationViewer, ReservationViewMap } from '#read-model/index.js';
import type { ReservationAdmission } from './admission/admission.port.js';
import type { ReservationTypeAvailability } from './availability/availability.port.js';
import type { ReservationEffects } from './effects.port.js';
import type { ResourceKindName } from './resource-kinds.js';
import type { ReservationWire } from './reservation-wire.js';
import type { OpenStackEffectsOptions } from './openstack/effects/openstack-effects.options.js';
import type { OpenStackClients } from './openstack/effects/openstack-effects.support.js';
import type { StandaloneCloud } from './standalone/standalone-cloud.js';
import type { StandaloneEffectsOptions } from './standalone/standalone-effects.options.js';
import type { EnforcementResources } from './ports/external-enforcement.port.js';
import type { FieldSchema, GraphqlField, OwnViewFields } from './view-schemas.js';

/** The reservation state of one type (the domain's union narrowed by its discriminant). */
export type ReservationOf<T extends ResourceType> = Extract<Reservation, { readonly resourceType: T }>;

/** A type's reservation as GET /v1/leases/{id} shows it (its folder augments the read model's `ReservationViewMap`). */
export type ReservationViewOf<T extends ResourceType> = T extends keyof ReservationViewMap ? ReservationViewMap[T] : never;

/** How a type is described at GET /v1/plugins (upstream's plugin name and title where upstream has the type). */
export interface PluginDescription {
  readonly name: string;
  readonly title: string;
  readonly description: string;
}

/**
 * One resource whose calendar carries a reservation: a host (whole, or `slots` of it), a floating IP, or a resource of a
 * registered kind (resource-kinds.ts). These are the calendars of the domain's consistency boundary, shared by the types.
 */
export type BookedResource =
  | { readonly kind: 'host'; readonly id: string; readonly slots: SlotDemand | null }
  | { readonly kind: 'floatingip'; readonly id: string }
  | { readonly kind: ResourceKindName; readonly id: string };

/**
 * How quotas count a type's reservation. `held` and `monthly` declare the quotas it counts (a type may count one another
 * type declares, with the same declaration); its folder adds their names to the domain's `HeldQuotaMap` and
 * `MonthlyQuotaMap` from these, so `amounts` names only declared quotas.
 */
export interface ReservationTypeQuota<R extends Reservation> extends QuotaDeclarations {
  /** What the reservation holds of each held quota at every instant of its lease's window (a quota it leaves out: 0). */
  amounts(reservation: R): QuotaAmounts;
}

/**
 * How usage meters a type's reservation. `metrics` declares the metrics it accrues (its folder adds them to the domain's
 * `UsageMetricMap`), in the order reports show them.
 */
export interface ReservationTypeUsage<R extends Reservation> {
  readonly metrics: UsageMetricDeclarations;
  /** What each resource the reservation holds accrues of each metric per hour while it runs, by resource id. */
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
 * How GET /v1/leases/{id}, GraphQL and the OpenAPI document show a type's reservations. Types that show the same
 * fields share one of these (the same object): GraphQL and OpenAPI then have one schema for them, by `name`.
 */
export interface ReservationTypeView<R extends Reservation, V extends ReservationViewBase> extends ReservationViewer<R, V> {
  /** The view's schema: its GraphQL object type (implementing `Reservation`) and its OpenAPI component. */
  readonly name: string;
  /** What happens to the tenant's things at the lease's end: the view's `end_action`. */
  readonly endAction: V['end_action'];
  /** The calendars whose bookings are the reservation's allocations (GraphQL `Reservation.allocations`). */
  readonly bookedOn: BookedResource['kind'];
  /** The GraphQL fields of the view's own fields (after every reservation's), in Blazar's order. */
  readonly graphql: { readonly [K in OwnViewFields<V>]-?: GraphqlField };
  /** The OpenAPI response schema of the view's own fields, in Blazar's order. */
  readonly openapi: { readonly [K in OwnViewFields<V>]-?: FieldSchema };
}

/** The public form of values nested in events: snake_case, explicit copies, as docs/events.md describes them. */
export type PublicObject = Readonly<Record<string, unknown>>;

/** How the public event catalogue (docs/events.md) shows a type's reservation. */
export interface ReservationTypeEvents<R extends Reservation> {
  /** Its fields after `id` and `resource_type`, which every reservation shows first. */
  publicShape(reservation: R): PublicObject;
}

/** How the body sent to the operator's external enforcement service (upstream's ExternalServiceFilter) shows a reservation. */
export interface ReservationTypeEnforcement<R extends Reservation> {
  /** Its user-controllable fields after `resource_type` (no ids or bookkeeping, as upstream), then its `allocations`. */
  body(resources: EnforcementResources, reservation: R): Readonly<Record<string, unknown>>;
}

/**
 * Everything one reservation type adds to Leasehold. Generic code (the lease decider, the use cases, the
 * reactor, the API) walks the registry of these (reservation-types.ts) and never branches on a type; a new
 * type that leaves a member out does not compile. Its reservation state enters the domain's union by
 * augmenting `ReservationTypeMap` (libs/domain/src/lease/reservation-type-map.ts) from the type's folder, and its
 * view the read model's lease view by augmenting `ReservationViewMap` (libs/read-model/src/reservation-view.ts).
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
  /** Where the availability search tries the admission, what it reports, and the type's part of the capacity report and calendar page. */
  readonly availability: ReservationTypeAvailability<ReservationOf<T>, Q>;
  readonly effects: ReservationTypeEffects<ReservationOf<T>>;
  readonly view: ReservationTypeView<ReservationOf<T>, ReservationViewOf<T>>;
  readonly events: ReservationTypeEvents<ReservationOf<T>>;
  readonly enforcement: ReservationTypeEnforcement<ReservationOf<T>>;
}
