import type { Reservation } from '#domain/index.js';
import type { EffectsRegistry, ReservationEffects } from '../effects.port.js';
import { RESERVATION_TYPES } from '../reservation-types.js';
import type { StandaloneCloud } from './standalone-cloud.js';
import type { StandaloneEffectsOptions } from './standalone-effects.options.js';

/** Each call of the adapter in one transaction of the cloud (see StandaloneCloud.atomically). */
const atomic = <R extends Reservation>(cloud: StandaloneCloud, adapter: ReservationEffects<R>): ReservationEffects<R> => ({
  onStart: (context, reservation) => cloud.atomically(() => adapter.onStart(context, reservation)),
  beforeEnd: (context, reservation) => cloud.atomically(() => adapter.beforeEnd(context, reservation)),
  onEnd: (context, reservation) => cloud.atomically(() => adapter.onEnd(context, reservation)),
  onUpdate: (context, reservation) => cloud.atomically(() => adapter.onUpdate(context, reservation)),
  leftovers: (context, reservation) => cloud.atomically(() => adapter.leftovers(context, reservation)),
});

/** Every registered type's effects acted out on one standalone FAKE cloud. */
export const standaloneEffectsRegistry = (cloud: StandaloneCloud, options: StandaloneEffectsOptions = {}): EffectsRegistry =>
  Object.fromEntries(
    RESERVATION_TYPES.map((module) => [module.resourceType, atomic(cloud, module.effects.standalone(cloud, options))]),
  ) as unknown as EffectsRegistry;
