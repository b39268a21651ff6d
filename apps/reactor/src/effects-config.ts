import { join } from 'node:path';
import type { EffectsRegistry } from '../../../libs/plugins/src/effects.port.js';
import { StandaloneCloud } from '../../../libs/plugins/src/standalone/standalone-cloud.js';
import { standaloneEffectsRegistry } from '../../../libs/plugins/src/standalone/standalone-effects.registry.js';

export const EFFECTS_KINDS = ['standalone'] as const;
export type EffectsKind = (typeof EFFECTS_KINDS)[number];

export interface OpenedEffects {
  readonly registry: EffectsRegistry;
  close(): void;
}

export class UnknownEffectsKindError extends Error {
  constructor(readonly kind: string) {
    super(`Unknown LEASEHOLD_EFFECTS value '${kind}'; supported: ${EFFECTS_KINDS.join(', ')}`);
    this.name = 'UnknownEffectsKindError';
  }
}

export const parseEffectsKind = (value: string | undefined): EffectsKind => {
  const kind = value ?? 'standalone';
  if (!(EFFECTS_KINDS as readonly string[]).includes(kind)) throw new UnknownEffectsKindError(kind);
  return kind as EffectsKind;
};

/** The effects adapters of one kind, keyed by resource type. */
export const openEffects = (kind: EffectsKind, dataDir: string): OpenedEffects => {
  switch (kind) {
    case 'standalone': {
      const cloud = StandaloneCloud.open({ file: join(dataDir, 'standalone-cloud.sqlite') });
      return { registry: standaloneEffectsRegistry(cloud), close: () => cloud.close() };
    }
    default: {
      const _never: never = kind;
      return _never;
    }
  }
};
