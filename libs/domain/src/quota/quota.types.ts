/**
 * Quotas counted at every instant of a lease's window. Each reservation type's module adds those it counts by module
 * augmentation (as `ReservationTypeMap`), from its declarations (`HeldQuotaDeclarations`), so the domain counts every
 * type's quotas without naming one.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface HeldQuotaMap {}

/** Quotas summed over each calendar month (UTC), in unit-hours of a held quota; added as `HeldQuotaMap`'s are. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface MonthlyQuotaMap {}

export type HeldQuota = Extract<keyof HeldQuotaMap, string>;
export type MonthlyQuota = Extract<keyof MonthlyQuotaMap, string>;
export type QuotaName = HeldQuota | MonthlyQuota;

/** How a quota is shown and configured. */
export interface QuotaWording {
  /** Its name on the wire: the API's field, the public event's field, the metric's label. */
  readonly field: string;
  /** Words for messages: "hosts held at once limit 4". */
  readonly words: string;
  /** The environment variable of its default limit (unset: unlimited). */
  readonly defaultVariable: string;
}

/** Held quotas as a type module declares them, by name. */
export type HeldQuotaDeclarations = Readonly<Record<string, QuotaWording>>;

/** Monthly quotas as a type module declares them, by name: each with the held quota whose amounts it sums. */
export type MonthlyQuotaDeclarations = Readonly<Record<string, QuotaWording & { readonly unit: HeldQuota }>>;

/** One quota of the catalogue: held at once (`unit` null) or monthly, in unit-hours of `unit`. */
export type QuotaDimension =
  | (QuotaWording & { readonly name: HeldQuota; readonly unit: null })
  | (QuotaWording & { readonly name: MonthlyQuota; readonly unit: HeldQuota });

/** A limit per quota; null: none (unlimited, or for a project's own settings: the configured default). */
export type QuotaLimits = Readonly<Record<QuotaName, number | null>>;

/** The largest limit accepted: counts stay exact in integer arithmetic on unit-milliseconds. */
export const MAX_QUOTA_LIMIT = 1_000_000_000;

/** What a lease holds at every instant of its window; a quota it does not name, 0. */
export type QuotaAmounts = Readonly<Partial<Record<HeldQuota, number>>>;

/** A lease as quotas count it: its amounts over [start, end) in epoch milliseconds. */
export interface LeaseHolding {
  readonly leaseId: string;
  readonly projectId: string;
  readonly start: number;
  readonly end: number;
  readonly amounts: QuotaAmounts;
}

/** Every quota in force: those the registered reservation types declare (quota-catalogue.ts). */
export interface QuotaCatalogue {
  /** Held quotas first, then monthly ones. */
  readonly dimensions: readonly QuotaDimension[];
  readonly names: readonly QuotaName[];
  readonly held: readonly HeldQuota[];
  readonly monthly: readonly MonthlyQuota[];
  readonly unitOf: Readonly<Record<MonthlyQuota, HeldQuota>>;
  readonly wording: Readonly<Record<QuotaName, QuotaWording>>;
  /** Every quota named, none limited. */
  readonly noLimits: QuotaLimits;
}
