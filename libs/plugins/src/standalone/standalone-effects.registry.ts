import type { Reservation } from '#domain/index.js';
import type { EffectsRegistry, ReservationEffects } from '../effects.port.js';
import { StandaloneFloatingIpEffects } from '../floating-ip/standalone/floating-ip.standalone-effects.js';
import { StandaloneInstanceEffects } from '../instance/standalone/instance.standalone-effects.js';
import { StandaloneHostEffects, type StandaloneHostEffectsOptions } from '../physical-host/standalone/physical-host.standalone-effects.js';
import type { StandaloneCloud } from './standalone-cloud.js';

/** Each call of the adapter in one transaction of the cloud (see StandaloneCloud.atomically). */
const atomic = <R extends Reservation>(cloud: StandaloneCloud, adapter: ReservationEffects<R>): ReservationEffects<R> => ({
  onStart: (context, reservation) => cloud.atomically(() => adapter.onStart(context, reservation)),
  beforeEnd: (context, reservation) => cloud.atomically(() => adapter.beforeEnd(context, reservation)),
  onEnd: (context, reservation) => cloud.atomically(() => adapter.onEnd(context, reservation)),
  onUpdate: (context, reservation) => cloud.atomically(() => adapter.onUpdate(context, reservation)),
  leftovers: (context, reservation) => cloud.atomically(() => adapter.leftovers(context, reservation)),
});

/** Every resource type's effects acted out on one standalone FAKE cloud. */
export const standaloneEffectsRegistry = (cloud: StandaloneCloud, hostOptions: StandaloneHostEffectsOptions = {}): EffectsRegistry => {
  const instances = atomic(cloud, new StandaloneInstanceEffects(cloud));
  return {
    'physical:host': atomic(cloud, new StandaloneHostEffects(cloud, hostOptions)),
    'virtual:instance': instances,
    'flavor:instance': instances,
    'virtual:floatingip': atomic(cloud, new StandaloneFloatingIpEffects(cloud)),
  };
};
