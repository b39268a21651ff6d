import { join } from 'node:path';
import { type CloudConfig, parseCloudConfig } from '#plugins/cloud-config.js';
import type { EffectsRegistry } from '#plugins/effects.port.js';
import { openStackEffectsFromSettings } from '#plugins/openstack/effects/openstack-effects.registry.js';
import type { OpenStackCallLog } from '#plugins/openstack/openstack.session.js';
import { StandaloneCloud } from '#plugins/standalone/standalone-cloud.js';
import { standaloneEffectsRegistry } from '#plugins/standalone/standalone-effects.registry.js';

export type EffectsKind = CloudConfig['kind'];

export interface OpenedEffects {
  readonly kind: EffectsKind;
  readonly registry: EffectsRegistry;
  close(): void;
}

/** LEASEHOLD_CLOUD (or the older LEASEHOLD_EFFECTS): standalone by default; throws CloudConfigError on a bad value. */
export const parseEffectsConfig = (env: NodeJS.ProcessEnv = process.env): CloudConfig => parseCloudConfig(env);

/** The effects adapters of the configured cloud, keyed by resource type. */
export const openEffects = (config: CloudConfig, dataDir: string, log?: (line: OpenStackCallLog) => void): OpenedEffects => {
  switch (config.kind) {
    case 'standalone': {
      const cloud = StandaloneCloud.open({ file: join(dataDir, 'standalone-cloud.sqlite') });
      return { kind: config.kind, registry: standaloneEffectsRegistry(cloud), close: () => cloud.close() };
    }
    case 'openstack':
      return { kind: config.kind, registry: openStackEffectsFromSettings(config.openstack, log), close: () => undefined };
    default: {
      const _never: never = config;
      return _never;
    }
  }
};
