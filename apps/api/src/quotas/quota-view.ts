import { HELD_QUOTAS, MONTHLY_QUOTAS, QUOTA_FIELDS, QUOTA_NAMES, type QuotaLimits } from '#domain/index.js';
import type { ProjectQuota } from '#application/quotas/quotas.js';

const limitsView = (limits: QuotaLimits): Record<string, number | null> =>
  Object.fromEntries(QUOTA_NAMES.map((name) => [QUOTA_FIELDS[name], limits[name]]));

/** GET and PUT /v1/quotas/{project_id}: the limits in effect (null: none), the project's own settings, and its use. */
export const quotaView = ({ projectId, limits, own, use }: ProjectQuota): object => ({
  project_id: projectId,
  limits: limitsView(limits),
  project_limits: limitsView(own),
  usage: {
    ...Object.fromEntries(HELD_QUOTAS.map((name) => [QUOTA_FIELDS[name], use.held[name]])),
    ...Object.fromEntries(MONTHLY_QUOTAS.map((name) => [QUOTA_FIELDS[name], use.monthly[name]])),
  },
  peak_usage: Object.fromEntries(HELD_QUOTAS.map((name) => [QUOTA_FIELDS[name], use.peak[name]])),
  month: use.month,
});
