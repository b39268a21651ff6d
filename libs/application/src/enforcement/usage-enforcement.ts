import { describeError } from '#domain/index.js';
import type {
  EnforcementResources,
  ExternalAnswer,
  ExternalEnforcementService,
  ExternalServiceSettings,
} from '#plugins/ports/external-enforcement.port.js';
import type { EnforcementConfig, FilterName } from './enforcement.config.js';
import { refused } from './enforcement-refusal.js';
import { type EnforcedLease, type EnforcementContext, contextBody, leaseBody } from './lease-body.js';
import { LeaseStacking } from './lease-stacking.js';
import { type MaxLeaseDurationPolicy, refuseCreate, refuseUpdate } from './max-lease-duration.rules.js';

/** One of upstream's enforcement filters: each check answers why it refuses, or null. */
interface EnforcementFilter {
  readonly name: FilterName;
  /** Whether it looks at the allocations: then a write is first decided without being recorded, for them. */
  readonly needsAllocations: boolean;
  checkCreate(context: EnforcementContext, lease: EnforcedLease, now: string): Promise<string | null>;
  checkUpdate(context: EnforcementContext, current: EnforcedLease, requested: EnforcedLease, now: string): Promise<string | null>;
  /** A notification: what it answers changes nothing; a failure throws, for the caller to record. */
  onEnd(context: EnforcementContext, lease: EnforcedLease): Promise<void>;
}

const maxLeaseDurationFilter = (policy: MaxLeaseDurationPolicy): EnforcementFilter => ({
  name: 'max_lease_duration',
  needsAllocations: false,
  checkCreate: (context, lease) => Promise.resolve(refuseCreate(policy, context.projectId, lease)),
  checkUpdate: (context, current, requested, now) => Promise.resolve(refuseUpdate(policy, context.projectId, current, requested, now)),
  onEnd: () => Promise.resolve(),
});

/** Upstream's text for a 403 without a message, and for every other answer (where upstream has no allow_on_error). */
export const EXTERNAL_DENIED = 'External service enforcement filter denied the request.';

const externalServiceFilter = (
  settings: ExternalServiceSettings,
  service: ExternalEnforcementService,
  resources: EnforcementResources,
  warn: (message: string) => void,
): EnforcementFilter => {
  const verdict = (endpoint: string, answer: ExternalAnswer): string | null => {
    switch (answer.kind) {
      case 'allowed':
        return null;
      case 'refused':
        return answer.message ?? EXTERNAL_DENIED;
      case 'failed':
        warn(
          `enforcement service ${endpoint} failed (${answer.reason}): ${settings.onError === 'allow' ? 'allowed' : 'denied'} as LEASEHOLD_ENFORCEMENT_EXTERNAL_ON_ERROR says`,
        );
        return settings.onError === 'allow' ? null : `${EXTERNAL_DENIED} The usage service could not be consulted (${answer.reason}).`;
      default: {
        const _never: never = answer;
        return _never;
      }
    }
  };
  return {
    name: 'external_service',
    needsAllocations: true,
    checkCreate: async (context, lease) =>
      verdict('check-create', await service.call('check-create', { context: contextBody(context), lease: leaseBody(resources, lease) })),
    checkUpdate: async (context, current, requested) => {
      const body = { context: contextBody(context), current_lease: leaseBody(resources, current), lease: leaseBody(resources, requested) };
      return verdict('check-update', await service.call('check-update', body));
    },
    onEnd: async (context, lease) => {
      const answer = await service.call('on-end', { context: contextBody(context), lease: leaseBody(resources, lease) });
      if (answer.kind === 'failed') throw new Error(answer.reason);
    },
  };
};

/** What one filter's on-end notification came to. */
export interface OnEndOutcome {
  readonly filter: FilterName;
  readonly error: string | null;
}

/**
 * Upstream's chain of enforcement filters, in the configured order: the first refusal denies a
 * create or an update (a 403 with the filter's message, its code naming the filter); every filter
 * hears of a lease's end, and nothing it answers stops that end. `lease_stacking` is not in the chain:
 * it counts the project's other leases, so the lease decision judges it under its fence (`stacking`).
 */
export class UsageEnforcement {
  constructor(
    private readonly filters: readonly EnforcementFilter[],
    private readonly where: { readonly authUrl: string | null; readonly regionName: string | null } = { authUrl: null, regionName: null },
    readonly stacking: LeaseStacking | null = null,
  ) {}

  /** Upstream's context: who asks, and where their Keystone and region are. */
  contextOf(who: { readonly userId: string; readonly projectId: string }): EnforcementContext {
    return { userId: who.userId, projectId: who.projectId, ...this.where };
  }

  get enabled(): boolean {
    return this.filters.length > 0;
  }

  get needsAllocations(): boolean {
    return this.filters.some((filter) => filter.needsAllocations);
  }

  async checkCreate(context: EnforcementContext, lease: EnforcedLease, now: string): Promise<void> {
    for (const filter of this.filters) {
      const reason = await filter.checkCreate(context, lease, now);
      if (reason !== null) throw refused(filter.name, reason);
    }
  }

  async checkUpdate(context: EnforcementContext, current: EnforcedLease, requested: EnforcedLease, now: string): Promise<void> {
    for (const filter of this.filters) {
      const reason = await filter.checkUpdate(context, current, requested, now);
      if (reason !== null) throw refused(filter.name, reason);
    }
  }

  async onEnd(context: EnforcementContext, lease: EnforcedLease): Promise<OnEndOutcome[]> {
    const outcomes: OnEndOutcome[] = [];
    for (const filter of this.filters) {
      try {
        await filter.onEnd(context, lease);
        outcomes.push({ filter: filter.name, error: null });
      } catch (error) {
        outcomes.push({ filter: filter.name, error: describeError(error) });
      }
    }
    return outcomes;
  }
}

export const NO_ENFORCEMENT = new UsageEnforcement([]);

export interface EnforcementParts {
  readonly config: EnforcementConfig;
  /** Present when `external_service` is enabled. */
  readonly service: ExternalEnforcementService | null;
  readonly resources: EnforcementResources;
  readonly warn: (message: string) => void;
}

/** The configured filters, in order, and the stacking limit when enabled. */
export const usageEnforcement = ({ config, service, resources, warn }: EnforcementParts): UsageEnforcement =>
  new UsageEnforcement(
    config.filters.flatMap((name) => {
      switch (name) {
        case 'max_lease_duration':
          return [maxLeaseDurationFilter(config.maxLeaseDuration)];
        case 'external_service':
          if (config.external === null || service === null) throw new Error('external_service is enabled without its service');
          return [externalServiceFilter(config.external, service, resources, warn)];
        case 'lease_stacking':
          return [];
        default: {
          const _never: never = name;
          return _never;
        }
      }
    }),
    { authUrl: config.authUrl, regionName: config.regionName },
    config.stacking === null ? null : new LeaseStacking(config.stacking, resources),
  );
