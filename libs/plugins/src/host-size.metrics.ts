import type { UsageMetricDeclarations } from '#domain/index.js';

/** What a host's size accrues, whole (physical:host) or in instance slots: the metrics both host-based types declare. */
export const HOST_SIZE_METRICS = {
  vcpu_hours: { counts: 'vCPUs held' },
  memory_mb_hours: { counts: 'MB of RAM held' },
  disk_gb_hours: { counts: 'GB of disk held' },
} as const satisfies UsageMetricDeclarations;
