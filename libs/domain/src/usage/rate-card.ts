import type { Capabilities } from '../host/host.types.js';
import type { Command, Decider, DomainEvent } from '../shared/decider.js';
import { invalid } from '../shared/errors.js';
import { mergeOrders } from '../shared/merge-orders.js';

/**
 * What a usage report counts, in hours of each; a rate card prices each. Each reservation type's module adds the metrics
 * it meters by module augmentation (as `ReservationTypeMap`), from its declarations (`UsageMetricDeclarations`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface UsageMetricMap {}
export type UsageMetric = Extract<keyof UsageMetricMap, string>;

/** Metrics as a type module declares them, by their name on the wire (`*_hours`): what an hour of each counts. */
export type UsageMetricDeclarations = Readonly<Record<string, { readonly counts: string }>>;

/** Every metric in force, in the order reports show them: those the registered reservation types declare. */
export interface UsageMetricCatalogue {
  readonly metrics: readonly UsageMetric[];
  readonly counts: Readonly<Record<UsageMetric, string>>;
}

/** The catalogue of the metrics the types declare, in an order that keeps each type's own; one metric, one meaning. */
export const usageMetricCatalogue = (declarations: readonly UsageMetricDeclarations[]): UsageMetricCatalogue => {
  const counts = new Map<string, string>();
  for (const declared of declarations)
    for (const [metric, { counts: what }] of Object.entries(declared)) {
      if ((counts.get(metric) ?? what) !== what) throw new Error(`Usage metric ${metric} is declared twice, differently`);
      counts.set(metric, what);
    }
  return {
    metrics: mergeOrders(declarations.map((declared) => Object.keys(declared))) as UsageMetric[],
    counts: Object.fromEntries(counts) as Record<UsageMetric, string>,
  };
};

/** Price per unit-hour of each metric, as a decimal string with at most 6 fraction digits ('0' when free). */
export type MetricPrices = Readonly<Record<UsageMetric, string>>;

/** Prices of some metrics: those a capability price overrides. */
export type MetricOverrides = Readonly<Partial<Record<UsageMetric, string>>>;

/**
 * Prices for resources on hosts whose capability `capability` equals `value` (e.g. node_type=gpu); the first match
 * overrides the metrics it names. Versions published before overrides were partial name every metric ('0' where the
 * body named none), so they still override them all and a report priced with one never changes.
 */
export interface CapabilityPrices {
  readonly capability: string;
  readonly value: string;
  readonly prices: MetricOverrides;
}

export interface RateCardTerms {
  readonly currency: string;
  /** ISO-8601 UTC: the first instant of usage this version prices. */
  readonly effectiveFrom: string;
  readonly prices: MetricPrices;
  readonly capabilityPrices: readonly CapabilityPrices[];
}

export type RateCardPublished = DomainEvent<
  'RateCard.Published',
  RateCardTerms & { readonly name: string; readonly version: number; readonly publishedAt: string }
>;
export type RateCardEvent = RateCardPublished;
export const RATE_CARD_EVENT_TYPES: readonly RateCardEvent['type'][] = ['RateCard.Published'];

export type RateCardCommand = Command<'PublishRateCard', RateCardTerms & { readonly name: string; readonly now: string }>;

/** Versions published so far (0: none). */
export interface RateCardState {
  readonly version: number;
}

export const RATE_CARD_CATEGORY = 'ratecard';
export const rateCardStream = (name: string): string => `${RATE_CARD_CATEGORY}-${name}`;

export const RATE_CARD_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
const NAME = new RegExp(RATE_CARD_NAME_PATTERN);
const CURRENCY = /^[A-Z]{3}$/;
/** Non-negative decimal, at most 12 integer and 6 fraction digits: prices stay exact in integer millionths. */
export const PRICE = /^(0|[1-9]\d{0,11})(\.\d{1,6})?$/;
const MAX_CAPABILITY_PRICES = 100;

// the request parser names only known metrics; every price it names is checked
const checkPrices = (prices: MetricOverrides, where: string): void => {
  for (const [metric, price] of Object.entries(prices)) {
    if (price !== undefined && !PRICE.test(price))
      throw invalid('INVALID_RATE_CARD', `${where}${metric} must be a non-negative decimal with at most 6 fraction digits`);
  }
};

const checkTerms = (name: string, terms: RateCardTerms): void => {
  if (!NAME.test(name))
    throw invalid(
      'INVALID_RATE_CARD',
      'Rate card name must be 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit',
    );
  if (!CURRENCY.test(terms.currency)) throw invalid('INVALID_RATE_CARD', 'currency must be an ISO 4217 code (three capital letters)');
  checkPrices(terms.prices, 'prices.');
  if (terms.capabilityPrices.length > MAX_CAPABILITY_PRICES)
    throw invalid('INVALID_RATE_CARD', `At most ${MAX_CAPABILITY_PRICES} capability_prices`);
  for (const [index, entry] of terms.capabilityPrices.entries()) {
    if (entry.capability.length === 0 || entry.capability.length > 64)
      throw invalid('INVALID_RATE_CARD', `capability_prices[${index}].capability must be 1 to 64 characters`);
    if (entry.value.length > 255) throw invalid('INVALID_RATE_CARD', `capability_prices[${index}].value must be at most 255 characters`);
    checkPrices(entry.prices, `capability_prices[${index}].prices.`);
    if (!Object.values(entry.prices).some((price) => price !== undefined))
      throw invalid('INVALID_RATE_CARD', `capability_prices[${index}].prices must name at least one metric`);
  }
};

const decide = (command: RateCardCommand, state: RateCardState): readonly RateCardEvent[] => {
  const { name, now, ...terms } = command.data;
  checkTerms(name, terms);
  return [{ type: 'RateCard.Published', data: { name, version: state.version + 1, ...terms, publishedAt: now } }];
};

/** Each publication is a new version; earlier ones stay as they were, so a report priced with one never changes. */
export const rateCardDecider: Decider<RateCardState, RateCardCommand, RateCardEvent> = {
  initialState: () => ({ version: 0 }),
  decide,
  evolve: (_state, event) => ({ version: event.data.version }),
};

/**
 * Every metric priced, '0' where `prices` names none: a metric a card does not price is free, and a card published before
 * a metric existed prices it at 0.
 */
export const everyMetric = (metrics: UsageMetricCatalogue, prices: MetricOverrides): MetricPrices =>
  Object.fromEntries(metrics.metrics.map((metric) => [metric, prices[metric] ?? '0'])) as MetricPrices;

/**
 * What a resource on a host pays, by the host's capabilities: the card's prices, overridden by the first entry the host
 * matches. Each entry's prices are merged once, so every host matching one entry pays the same object (reports sum by it).
 */
export const pricesOnHosts = (card: {
  readonly prices: MetricPrices;
  readonly capabilityPrices: readonly CapabilityPrices[];
}): ((capabilities: Capabilities) => MetricPrices) => {
  const merged = card.capabilityPrices.map((entry): MetricPrices => ({ ...card.prices, ...entry.prices }));
  return (capabilities) => {
    const index = card.capabilityPrices.findIndex((entry) => capabilities[entry.capability] === entry.value);
    return index === -1 ? card.prices : (merged[index] as MetricPrices);
  };
};
