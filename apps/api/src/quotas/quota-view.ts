import type { QuotaLimits, QuotaName } from '#domain/index.js';
import type { ProjectQuota } from '#application/quotas/quotas.js';
import { QUOTAS } from '#plugins/reservation-holdings.js';

const fieldsOf = <N extends QuotaName>(names: readonly N[], value: (name: N) => number | null): Record<string, number | null> =>
  Object.fromEntries(names.map((name) => [QUOTAS.wording[name].field, value(name)]));

const limitsView = (limits: QuotaLimits): Record<string, number | null> => fieldsOf(QUOTAS.names, (name) => limits[name]);

/** GET and PUT /v1/quotas/{project_id}: the limits in effect (null: none), the project's own settings, and its use. */
export const quotaView = ({ projectId, limits, own, use }: ProjectQuota): object => ({
  project_id: projectId,
  limits: limitsView(limits),
  project_limits: limitsView(own),
  usage: { ...fieldsOf(QUOTAS.held, (name) => use.held[name]), ...fieldsOf(QUOTAS.monthly, (name) => use.monthly[name]) },
  peak_usage: fieldsOf(QUOTAS.held, (name) => use.peak[name]),
  month: use.month,
});
