import type { Reservation, ResourceType } from '#domain/index.js';
import type { ReservationAdmission } from './admission/admission.port.js';
import type { ReservationEffects } from './effects.port.js';
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

/** A type's side effects on each kind of cloud; the reactor alone calls what these make. */
export interface ReservationTypeEffects<R extends Reservation> {
  openstack(clients: OpenStackClients, options: OpenStackEffectsOptions): ReservationEffects<R>;
  standalone(cloud: StandaloneCloud, options: StandaloneEffectsOptions): ReservationEffects<R>;
}

/**
 * Everything one reservation type adds to Leasehold. Generic code (the lease use cases, the reactor,
 * the API) walks the registry of these (reservation-types.ts) and never branches on a type; a new type
 * that leaves a member out does not compile. docs/architecture.md, "Adding a reservation type".
 */
export interface ReservationType<T extends ResourceType, Q extends { readonly resourceType: T }> {
  readonly resourceType: T;
  readonly plugin: PluginDescription;
  /** Pure decisions over the calendars: choose, book, change, heal and release what a reservation holds. */
  readonly admission: ReservationAdmission<ReservationOf<T>, Q>;
  readonly effects: ReservationTypeEffects<ReservationOf<T>>;
}
