import { type FairShareFactor, HOUR_MS, type HeldUnits, decayedUsage, fairShareFactors } from '#domain/index.js';
import { FAIR_SHARE_METRIC } from '#plugins/host-size.metrics.js';
import { type Caller, authorize } from '../caller.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import type { UsageIndex } from '../usage/usage-index.js';
import type { FairShareConfig } from './fair-share.config.js';

const HEAD = Number.MAX_SAFE_INTEGER;

/** The public shape of one project's standing (docs/fair-share.md). */
export interface FairShareView {
  readonly project_id: string;
  readonly shares: number;
  readonly normalised_share: number;
  readonly decayed_usage: number;
  readonly normalised_usage: number;
  readonly factor: number;
}

/** What every figure of an answer was computed with. */
export interface FairShareBasis {
  readonly computed_at: string;
  readonly half_life_hours: number;
  readonly usage_unit: string;
}

export const fairShareView = (entry: FairShareFactor): FairShareView => ({
  project_id: entry.projectId,
  shares: entry.shares,
  normalised_share: entry.normalisedShare,
  decayed_usage: entry.decayedUsage,
  normalised_usage: entry.normalisedUsage,
  factor: entry.factor,
});

/**
 * Fair-share factors at an instant, from the usage index (the log's facts: who held what, when, and the shares admins set):
 * the same log and instant give the same factors. Entry point for every transport and, later, the queue's ordering.
 */
export class FairShareQueries {
  constructor(
    private readonly index: UsageIndex,
    private readonly config: FairShareConfig,
  ) {}

  /** Every project with shares set or usage before `now`, and those of `projects`, by project id. */
  async factors(now: string, projects: Iterable<string> = []): Promise<FairShareFactor[]> {
    await this.index.catchUp();
    const nowMs = Date.parse(now);
    return fairShareFactors({
      shares: this.index.sharesAt(HEAD),
      usage: decayedUsage(this.heldUnits(), nowMs, this.config.halfLifeMs),
      projects,
    });
  }

  async list(caller: Caller, now: string): Promise<{ fair_share: FairShareBasis & { readonly projects: FairShareView[] } }> {
    authorize(caller, ACTIONS.fairShareGetAll);
    return { fair_share: { ...this.basis(now), projects: (await this.factors(now)).map(fairShareView) } };
  }

  /** One project's standing among the others (a project never seen holds the default shares and has used nothing). */
  async show(caller: Caller, projectId: string, now: string): Promise<{ fair_share: FairShareBasis & FairShareView }> {
    authorize(caller, ACTIONS.fairShareGet, { project_id: projectId, user_id: caller.userId });
    const entry = (await this.factors(now, [projectId])).find((factor) => factor.projectId === projectId) as FairShareFactor;
    return { fair_share: { ...this.basis(now), ...fairShareView(entry) } };
  }

  private basis(now: string): FairShareBasis {
    return { computed_at: now, half_life_hours: this.config.halfLifeMs / HOUR_MS, usage_unit: FAIR_SHARE_METRIC };
  }

  /** Every lease's holdings in creation order (a stable order keeps the sums reproducible), as vCPUs held. */
  private heldUnits(): HeldUnits[] {
    return this.index
      .leaseIds(null)
      .flatMap((leaseId) =>
        this.index
          .piecesAt(leaseId, HEAD)
          .map(({ projectId, startMs, endMs, rates }) => ({ projectId, startMs, endMs, units: rates[FAIR_SHARE_METRIC] ?? 0 })),
      );
  }
}
