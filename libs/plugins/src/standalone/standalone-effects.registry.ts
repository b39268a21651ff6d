import type { EffectsRegistry } from '../effects.port.js';
import { StandaloneFloatingIpEffects } from '../floating-ip/standalone/floating-ip.standalone-effects.js';
import { StandaloneInstanceEffects } from '../instance/standalone/instance.standalone-effects.js';
import { StandaloneHostEffects, type StandaloneHostEffectsOptions } from '../physical-host/standalone/physical-host.standalone-effects.js';
import type { StandaloneCloud } from './standalone-cloud.js';

/** Every resource type's effects acted out on one standalone FAKE cloud. */
export const standaloneEffectsRegistry = (cloud: StandaloneCloud, hostOptions: StandaloneHostEffectsOptions = {}): EffectsRegistry => {
  const instances = new StandaloneInstanceEffects(cloud);
  return {
    'physical:host': new StandaloneHostEffects(cloud, hostOptions),
    'virtual:instance': instances,
    'flavor:instance': instances,
    'virtual:floatingip': new StandaloneFloatingIpEffects(cloud),
  };
};
