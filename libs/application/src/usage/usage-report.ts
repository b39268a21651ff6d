import { type Capabilities, type MetricPrices, type UsageMetric, hoursOf } from '#domain/index.js';
import { USAGE_METRICS, pricedByHostCapabilities } from '#plugins/reservation-holdings.js';
import { ExactSum } from './exact-sum.js';
import type { GroupBy } from './usage-groups.js';
import type { PublishedRateCard, TimedPiece } from './usage-index.js';

/** The metrics in the order reports show them (a line's sums are in this order). */
const METRICS = USAGE_METRICS.metrics;

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

/** What a report counts: [startMs, endMs), endMs being the window's end or the report's `until`, whichever comes first. */
export interface ReportWindow {
  readonly startMs: number;
  readonly endMs: number;
}

export interface Pricing {
  readonly card: PublishedRateCard;
  readonly capabilitiesOf: (hostId: string) => Capabilities;
  /** The card's prices for a host with these capabilities (pricesOnHosts of the card). */
  readonly onHost: (capabilities: Capabilities) => MetricPrices;
}

interface Line {
  readonly key: Readonly<Record<string, string>>;
  readonly resourceType: string;
  /** Unit-milliseconds of each metric (METRICS order). */
  readonly unitMs: readonly ExactSum[];
  /** The same, by the prices they were held at (empty without a rate card): priced once per line. */
  readonly priced: Map<MetricPrices, readonly ExactSum[]>;
}

const sums = (): ExactSum[] => METRICS.map(() => new ExactSum());

/** The line a piece adds to: its group's fields and resource type, joined (the lines' sort key). */
const lineId = (piece: TimedPiece, groupBy: GroupBy): string => {
  switch (groupBy) {
    case 'project':
      return `${piece.projectId}\u0000${piece.resourceType}`;
    case 'lease':
      return `${piece.projectId}\u0000${piece.leaseId}\u0000${piece.resourceType}`;
    case 'reservation':
      return `${piece.projectId}\u0000${piece.leaseId}\u0000${piece.reservationId}\u0000${piece.resourceType}`;
    case 'resource':
      return `${piece.resourceId}\u0000${piece.resourceType}`;
    default: {
      const _never: never = groupBy;
      return _never;
    }
  }
};

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

/** A piece's prices: its host's (the card's, overridden by the capability entry it matches), or the card's for a type not on hosts. */
const pricesFor = (pricing: Pricing, piece: TimedPiece, cache: Map<string, MetricPrices>): MetricPrices => {
  if (!pricedByHostCapabilities(piece.resourceType)) return pricing.card.prices;
  const cached = cache.get(piece.resourceId);
  if (cached !== undefined) return cached;
  const prices = pricing.onHost(pricing.capabilitiesOf(piece.resourceId));
  cache.set(piece.resourceId, prices);
  return prices;
};

/** Clipped duration of a piece in the window, in ms (0: outside); a piece still open runs to the window's end. */
const clippedMs = (piece: TimedPiece, window: ReportWindow): number => {
  const end = piece.endMs === null ? window.endMs : Math.min(piece.endMs, window.endMs);
  return Math.max(0, end - Math.max(piece.startMs, window.startMs));
};

/** Sums pieces into lines keyed by group and resource type: integer unit-milliseconds, exact. */
export const accumulate = (
  pieces: Iterable<TimedPiece>,
  window: ReportWindow,
  groupBy: GroupBy,
  pricing: Pricing | null,
): Map<string, Line> => {
  const lines = new Map<string, Line>();
  const priceCache = new Map<string, MetricPrices>();
  for (const piece of pieces) {
    const ms = clippedMs(piece, window);
    if (ms === 0) continue;
    const id = lineId(piece, groupBy);
    let line = lines.get(id);
    if (line === undefined) {
      line = { key: keyOf(piece, groupBy), resourceType: piece.resourceType, unitMs: sums(), priced: new Map() };
      lines.set(id, line);
    }
    let pricedSums: readonly ExactSum[] | undefined;
    if (pricing !== null) {
      const prices = pricesFor(pricing, piece, priceCache);
      pricedSums = line.priced.get(prices);
      if (pricedSums === undefined) {
        pricedSums = sums();
        line.priced.set(prices, pricedSums);
      }
    }
    for (let i = 0; i < METRICS.length; i++) {
      const rate = piece.rates[METRICS[i] as UsageMetric] ?? 0;
      if (rate === 0) continue;
      (line.unitMs[i] as ExactSum).addProduct(rate, ms);
      pricedSums?.[i]?.addProduct(rate, ms);
    }
  }
  return lines;
};

const hoursIn = (sum: ExactSum): number => hoursOf(sum.safe() ?? sum.value());

/** Hours of every metric, in METRICS order: one object shape for every line. */
const metricsOf = (unitMs: readonly ExactSum[]): Record<UsageMetric, number> => {
  const hours: Partial<Record<UsageMetric, number>> = {};
  METRICS.forEach((metric, i) => (hours[metric] = hoursIn(unitMs[i] as ExactSum)));
  return hours as Record<UsageMetric, number>;
};

/** Cost in millionths of the currency: the exact sum of unit-ms x price, rounded once per line. */
const lineCost = (line: Line): bigint => {
  let numerator = 0n;
  for (const [prices, priced] of line.priced) {
    METRICS.forEach((metric, i) => {
      const price = millionths(prices[metric]);
      if (price !== 0n) numerator += (priced[i] as ExactSum).value() * price;
    });
  }
  return divideRounded(numerator, MS_PER_HOUR);
};

/** Lines in a stable order (group key, then resource type) and the totals: the same input always gives the same bytes. */
export const renderLines = (lines: Map<string, Line>, pricing: Pricing | null): { lines: object[]; totals: object } => {
  const ordered = [...lines.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, line]) => line);
  const total = sums();
  let totalCost = 0n;
  const rendered = ordered.map((line) => {
    line.unitMs.forEach((sum, i) => (total[i] as ExactSum).add(sum));
    const metrics = { ...line.key, resource_type: line.resourceType, ...metricsOf(line.unitMs) };
    if (pricing === null) return metrics;
    const cost = lineCost(line);
    totalCost += cost;
    return { ...metrics, cost: decimal6(cost) };
  });
  // the total cost is the sum of the lines' rounded costs, so an invoice adds up
  const totals = { ...metricsOf(total), ...(pricing === null ? {} : { cost: decimal6(totalCost), currency: pricing.card.currency }) };
  return { lines: rendered, totals };
};
