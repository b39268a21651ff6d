import { type Capabilities, type MetricPrices, USAGE_METRICS, type UsageMetric, type UsageRates } from '#domain/index.js';
import type { PublishedRateCard, TimedPiece } from './usage-index.js';

export const GROUP_BY = ['project', 'lease', 'reservation', 'resource'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

/** Metric -> the rate that accrues it. */
const RATE_OF: Readonly<Record<UsageMetric, keyof UsageRates>> = {
  host_hours: 'hosts',
  instance_hours: 'instances',
  vcpu_hours: 'vcpus',
  memory_mb_hours: 'memoryMb',
  disk_gb_hours: 'diskGb',
  floating_ip_hours: 'floatingIps',
};

const MS_PER_HOUR = 3_600_000n;
const MILLIONTHS = 1_000_000n;

/** A decimal with at most 6 fraction digits (checked when the card was published) in millionths. */
export const millionths = (decimal: string): bigint => {
  const [whole = '0', fraction = ''] = decimal.split('.');
  return BigInt(whole) * MILLIONTHS + BigInt(fraction.padEnd(6, '0'));
};

/** Integer millionths as a decimal with exactly 6 fraction digits. */
const decimal6 = (value: bigint): string => `${value / MILLIONTHS}.${(value % MILLIONTHS).toString().padStart(6, '0')}`;

/** Rounds numerator/denominator (both non-negative) half up. */
const divideRounded = (numerator: bigint, denominator: bigint): bigint => (numerator + denominator / 2n) / denominator;

/** Unit-milliseconds as hours, rounded to millionths once, at the end (the sums stay exact integers). */
const hours = (unitMs: bigint): number => Number(decimal6(divideRounded(unitMs * MILLIONTHS, MS_PER_HOUR)));

export interface ReportWindow {
  readonly startMs: number;
  readonly endMs: number;
  /** Where a piece still open at the report's position stops: the instant that position was recorded. */
  readonly openUntilMs: number;
}

export interface Pricing {
  readonly card: PublishedRateCard;
  readonly capabilitiesOf: (hostId: string) => Capabilities;
}

interface Line {
  readonly key: Readonly<Record<string, string>>;
  readonly resourceType: string;
  readonly unitMs: bigint[];
  /** Sum of unit-ms x price in millionths per hour. */
  cost: bigint;
}

const keyOf = (piece: TimedPiece, groupBy: GroupBy): Readonly<Record<string, string>> => {
  switch (groupBy) {
    case 'project':
      return { project_id: piece.projectId };
    case 'lease':
      return { project_id: piece.projectId, lease_id: piece.leaseId };
    case 'reservation':
      return { project_id: piece.projectId, lease_id: piece.leaseId, reservation_id: piece.reservationId };
    case 'resource':
      return { resource_id: piece.resourceId };
    default: {
      const _never: never = groupBy;
      return _never;
    }
  }
};

/** The prices for a piece: the first capability entry its host matches, else the card's own. */
const pricesFor = (pricing: Pricing, piece: TimedPiece, cache: Map<string, MetricPrices>): MetricPrices => {
  if (piece.resourceType === 'virtual:floatingip') return pricing.card.prices;
  const cached = cache.get(piece.resourceId);
  if (cached !== undefined) return cached;
  const capabilities = pricing.capabilitiesOf(piece.resourceId);
  const match = pricing.card.capabilityPrices.find((entry) => capabilities[entry.capability] === entry.value);
  const prices = match?.prices ?? pricing.card.prices;
  cache.set(piece.resourceId, prices);
  return prices;
};

/** Clipped duration of a piece in the window, in ms (0: outside). */
const clippedMs = (piece: TimedPiece, window: ReportWindow): number => {
  const end = Math.min(piece.endMs ?? window.openUntilMs, window.endMs);
  return Math.max(0, end - Math.max(piece.startMs, window.startMs));
};

/** Sums pieces into lines keyed by group and resource type: integer unit-milliseconds and cost numerators, exact. */
export const accumulate = (pieces: Iterable<TimedPiece>, window: ReportWindow, groupBy: GroupBy, pricing: Pricing | null): Map<string, Line> => {
  const lines = new Map<string, Line>();
  const priceCache = new Map<string, MetricPrices>();
  const priceMillionths = new Map<MetricPrices, bigint[]>();
  for (const piece of pieces) {
    const ms = clippedMs(piece, window);
    if (ms === 0) continue;
    const key = keyOf(piece, groupBy);
    const id = `${Object.values(key).join('\u0000')}\u0000${piece.resourceType}`;
    let line = lines.get(id);
    if (line === undefined) {
      line = { key, resourceType: piece.resourceType, unitMs: USAGE_METRICS.map(() => 0n), cost: 0n };
      lines.set(id, line);
    }
    const duration = BigInt(ms);
    const prices = pricing === null ? null : pricesFor(pricing, piece, priceCache);
    let perUnit = prices === null ? undefined : priceMillionths.get(prices);
    if (prices !== null && perUnit === undefined) {
      perUnit = USAGE_METRICS.map((metric) => millionths(prices[metric]));
      priceMillionths.set(prices, perUnit);
    }
    USAGE_METRICS.forEach((metric, i) => {
      const rate = piece.rates[RATE_OF[metric]];
      if (rate === 0) return;
      const unitMs = BigInt(rate) * duration;
      line.unitMs[i] = (line.unitMs[i] as bigint) + unitMs;
      if (perUnit !== undefined) line.cost += unitMs * (perUnit[i] as bigint);
    });
  }
  return lines;
};

const metricsOf = (unitMs: readonly bigint[]): Record<UsageMetric, number> =>
  Object.fromEntries(USAGE_METRICS.map((metric, i) => [metric, hours(unitMs[i] as bigint)])) as Record<UsageMetric, number>;

/** Cost in millionths of the currency, rounded once per line. */
const lineCost = (line: Line): bigint => divideRounded(line.cost, MS_PER_HOUR);

/** Lines in a stable order (group key, then resource type) and the totals: the same input always gives the same bytes. */
export const renderLines = (lines: Map<string, Line>, pricing: Pricing | null): { lines: object[]; totals: object } => {
  const ordered = [...lines.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, line]) => line);
  const total = USAGE_METRICS.map(() => 0n);
  let totalCost = 0n;
  const rendered = ordered.map((line) => {
    line.unitMs.forEach((value, i) => (total[i] = (total[i] as bigint) + value));
    const cost = lineCost(line);
    totalCost += cost;
    return { ...line.key, resource_type: line.resourceType, ...metricsOf(line.unitMs), ...(pricing === null ? {} : { cost: decimal6(cost) }) };
  });
  // the total cost is the sum of the lines' rounded costs, so an invoice adds up
  const totals = { ...metricsOf(total), ...(pricing === null ? {} : { cost: decimal6(totalCost), currency: pricing.card.currency }) };
  return { lines: rendered, totals };
};
