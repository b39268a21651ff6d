/** The quotas of a project: five held at once, two per calendar month (UTC). */
export const QUOTA_NAMES = ['hosts', 'vcpus', 'memoryMb', 'floatingIps', 'networks', 'hostHoursPerMonth', 'vcpuHoursPerMonth'] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

/** Quotas counted at every instant of a lease's window. */
export const HELD_QUOTAS = ['hosts', 'vcpus', 'memoryMb', 'floatingIps', 'networks'] as const satisfies readonly QuotaName[];
export type HeldQuota = (typeof HELD_QUOTAS)[number];

/** Quotas summed over each calendar month (UTC), in unit-hours. */
export const MONTHLY_QUOTAS = ['hostHoursPerMonth', 'vcpuHoursPerMonth'] as const satisfies readonly QuotaName[];
export type MonthlyQuota = (typeof MONTHLY_QUOTAS)[number];

/** A limit per quota; null: none (unlimited, or for a project's own settings: the configured default). */
export type QuotaLimits = Readonly<Record<QuotaName, number | null>>;

export const NO_LIMITS: QuotaLimits = {
  hosts: null,
  vcpus: null,
  memoryMb: null,
  floatingIps: null,
  networks: null,
  hostHoursPerMonth: null,
  vcpuHoursPerMonth: null,
};

/** The largest limit accepted: counts stay exact in integer arithmetic on unit-milliseconds. */
export const MAX_QUOTA_LIMIT = 1_000_000_000;

/** What a lease holds at every instant of its window. */
export type QuotaAmounts = Readonly<Record<HeldQuota, number>>;

export const NO_AMOUNTS: QuotaAmounts = { hosts: 0, vcpus: 0, memoryMb: 0, floatingIps: 0, networks: 0 };

/** The unit each monthly quota multiplies by hours. */
export const MONTHLY_UNIT: Readonly<Record<MonthlyQuota, HeldQuota>> = { hostHoursPerMonth: 'hosts', vcpuHoursPerMonth: 'vcpus' };

/** A lease as quotas count it: its amounts over [start, end) in epoch milliseconds. */
export interface LeaseHolding {
  readonly leaseId: string;
  readonly projectId: string;
  readonly start: number;
  readonly end: number;
  readonly amounts: QuotaAmounts;
}

/** Each quota's name on the wire (the API's fields, the metric's label). */
export const QUOTA_FIELDS: Readonly<Record<QuotaName, string>> = {
  hosts: 'hosts',
  vcpus: 'vcpus',
  memoryMb: 'memory_mb',
  floatingIps: 'floating_ips',
  networks: 'networks',
  hostHoursPerMonth: 'host_hours_per_month',
  vcpuHoursPerMonth: 'vcpu_hours_per_month',
};

/** Words for messages: "hosts held at once limit 4". */
export const QUOTA_WORDS: Readonly<Record<QuotaName, string>> = {
  hosts: 'hosts held at once',
  vcpus: 'instance vCPUs held at once',
  memoryMb: 'instance RAM (MB) held at once',
  floatingIps: 'floating IPs held at once',
  networks: 'network segments held at once',
  hostHoursPerMonth: 'host-hours per month',
  vcpuHoursPerMonth: 'vCPU-hours per month',
};
