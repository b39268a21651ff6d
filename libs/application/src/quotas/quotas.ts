import {
  type HeldQuota,
  type LeaseHolding,
  type QuotaLimits,
  type QuotaName,
  type QuotaUse,
  effectiveLimits,
  quotaExceeded,
  quotaExcess,
  quotaStream,
  quotaUse,
  toMs,
} from '#domain/index.js';
import type { AppendRequest, EventMetadata } from '#event-store/event-store.port.js';
import { QUOTAS } from '#plugins/reservation-holdings.js';
import { appendTo, guardOf } from '../command.js';
import type { QuotaConfig } from './quota.config.js';
import { QUOTA_DECIDER, type QuotaIndex } from './quota-index.js';

/** A lease decision's quota side: the project, the lease before (null: a new one) and after. */
export interface LeaseQuotaChange {
  readonly projectId: string;
  readonly leaseId: string;
  readonly before: LeaseHolding | null;
  readonly after: LeaseHolding | null;
  readonly now: string;
}

/** A decision that leaves what the lease holds as it was (a rename) adds nothing to check or fence. */
const sameHolding = (a: LeaseHolding | null, b: LeaseHolding): boolean =>
  a !== null && a.start === b.start && a.end === b.end && QUOTAS.held.every((name) => (a.amounts[name] ?? 0) === (b.amounts[name] ?? 0));

const unlimited = (limits: QuotaLimits): boolean => QUOTAS.names.every((name) => limits[name] === null);

/** A project's limits and use, as GET /v1/quotas/{project_id} shows them. */
export interface ProjectQuota {
  readonly projectId: string;
  readonly limits: QuotaLimits;
  readonly own: QuotaLimits;
  readonly use: QuotaUse;
}

/**
 * Quotas inside the ledger's consistency boundary: a lease decision that adds to what its project
 * holds is checked against the quota index and appends `Quota.LeaseAdmitted` to the project's quota
 * stream under the revision it read, in the same append as the lease's events; so two admissions of
 * one project (in this process or another) decided on the same state cannot both be recorded, and
 * the second is decided again on a state that has the first. In a project without limits the
 * admission writes nothing there, but is still written under that revision (a guard).
 */
export class Quotas {
  constructor(
    readonly index: QuotaIndex,
    private readonly config: QuotaConfig,
  ) {}

  limitsOf(projectId: string): QuotaLimits {
    return effectiveLimits(QUOTAS, this.index.quota(projectId).state.limits, this.config.defaults);
  }

  /**
   * Runs inside the decision (under the handler's lock): throws the 403 of the first quota exceeded, or
   * answers the fence to append. `judge` is another rule over the project's other leases (the stacking
   * limit), judged on the state the fence is taken on; an admission it judged is always written (never
   * only guarded), so two of them decided on one state conflict.
   */
  async admit(
    { projectId, leaseId, before, after, now }: LeaseQuotaChange,
    metadata: EventMetadata,
    newId: () => string,
    judge: ((others: readonly LeaseHolding[]) => Promise<void>) | null = null,
  ): Promise<AppendRequest[]> {
    const held = after !== null && sameHolding(before, after);
    if (after === null || (held && judge === null)) return [];
    await this.index.catchUp();
    const limits = this.limitsOf(projectId);
    const { revision, state } = this.index.quota(projectId);
    const expected = revision === -1 ? 'no_stream' : revision;
    const others = this.index.holdings(projectId, leaseId);
    // a project without limits is only guarded: its admissions do not wait on each other, yet one decided
    // here while another process sets a limit conflicts, and is decided again under that limit
    if (unlimited(limits) && judge === null) return [guardOf(quotaStream(projectId), expected)];
    const excess = unlimited(limits) || held ? null : quotaExcess(QUOTAS, { limits, others, before, after, now: toMs(now) });
    if (excess !== null) throw quotaExceeded(QUOTAS, projectId, excess);
    if (judge !== null) await judge(others);
    const events = QUOTA_DECIDER.decide({ type: 'AdmitLease', data: { projectId, leaseId, now } }, state);
    return [appendTo(quotaStream(projectId), expected, events, metadata, newId)];
  }

  /** The project's limits and use at `now`, from the index as caught up. */
  async project(projectId: string, now: string): Promise<ProjectQuota> {
    await this.index.catchUp();
    return {
      projectId,
      limits: this.limitsOf(projectId),
      own: this.index.quota(projectId).state.limits,
      use: quotaUse(QUOTAS, this.index.holdings(projectId), toMs(now)),
    };
  }

  /**
   * The `metricTopN` projects nearest their limits (the highest share of a limit used now or this
   * month; then the most held of each held quota, in the catalogue's order), each with every quota's use and limit.
   */
  async topUse(now: string): Promise<QuotaSample[]> {
    await this.index.catchUp();
    const at = toMs(now);
    const ranked = this.index.projects().map((projectId) => {
      const limits = this.limitsOf(projectId);
      const uses = useByQuota(quotaUse(QUOTAS, this.index.holdings(projectId), at));
      return { projectId, limits, uses, share: Math.max(0, ...QUOTAS.names.map((name) => shareOf(uses[name], limits[name]))) };
    });
    ranked.sort((a, b) => b.share - a.share || mostHeld(a.uses, b.uses) || a.projectId.localeCompare(b.projectId));
    return ranked
      .slice(0, this.config.metricTopN)
      .flatMap(({ projectId, limits, uses }) =>
        QUOTAS.dimensions.map(({ name, field }) => ({ projectId, quota: field, use: uses[name], limit: limits[name] })),
      );
  }
}

/** One project's use of one quota (by its wire name), for the metric. */
export interface QuotaSample {
  readonly projectId: string;
  readonly quota: string;
  readonly use: number;
  readonly limit: number | null;
}

const useByQuota = (use: QuotaUse): Readonly<Record<QuotaName, number>> => ({ ...use.held, ...use.monthly });

/** The first held quota of which one holds more (negative: `a`), 0 when they hold as much of each. */
const mostHeld = (a: Readonly<Record<HeldQuota, number>>, b: Readonly<Record<HeldQuota, number>>): number => {
  for (const name of QUOTAS.held) if (a[name] !== b[name]) return b[name] - a[name];
  return 0;
};

const shareOf = (use: number, limit: number | null): number => {
  if (limit === null || use === 0) return 0;
  return limit === 0 ? Number.POSITIVE_INFINITY : use / limit;
};
