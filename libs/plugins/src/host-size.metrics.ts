import type { UsageMetricDeclarations } from '#domain/index.js';

/** What a host's size accrues, whole (physical:host) or in instance slots: the metrics both host-based types declare. */
export const HOST_SIZE_METRICS = {
  vcpu_hours: { counts: 'vCPUs held' },
  memory_mb_hours: { counts: 'MB of RAM held' },
  disk_gb_hours: { counts: 'GB of disk held' },
} as const satisfies UsageMetricDeclarations;

/**
 * What fair share counts of a project's holdings (docs/fair-share.md): vCPU-hours, which whole hosts (their registered
 * vCPUs) and instance slots both accrue, as Slurm charges CPU time by default.
 */
export const FAIR_SHARE_METRIC = 'vcpu_hours' satisfies keyof typeof HOST_SIZE_METRICS;
