import type { Command, Decider, DomainEvent } from '../shared/decider.js';
import { invalid } from '../shared/errors.js';

/** What a report counts, in hours of each; a rate card prices each. */
export const USAGE_METRICS = [
  'host_hours',
  'instance_hours',
  'vcpu_hours',
  'memory_mb_hours',
  'disk_gb_hours',
  'floating_ip_hours',
] as const;
export type UsageMetric = (typeof USAGE_METRICS)[number];

/** Price per unit-hour of each metric, as a decimal string with at most 6 fraction digits ('0' when free). */
export type MetricPrices = Readonly<Record<UsageMetric, string>>;

/** Prices for resources on hosts whose capability `capability` equals `value` (e.g. node_type=gpu); first match wins. */
export interface CapabilityPrices {
  readonly capability: string;
  readonly value: string;
  readonly prices: MetricPrices;
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

const checkPrices = (prices: MetricPrices, where: string): void => {
  for (const metric of USAGE_METRICS) {
    if (!PRICE.test(prices[metric]))
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
