import type { DateTime } from 'luxon';
import { type CapabilityPrices, type MetricPrices, type RateCardTerms, USAGE_METRICS, invalid } from '#domain/index.js';
import { parseInstant } from '../http/blazar-dates.js';
import { requireObject } from '../http/validate-body.js';

const BODY_FIELDS = ['currency', 'effective_from', 'prices', 'capability_prices'];
const ENTRY_FIELDS = ['capability', 'value', 'prices'];

const refuseUnknown = (object: Readonly<Record<string, unknown>>, allowed: readonly string[], where: string): void => {
  const unknown = Object.keys(object).find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw invalid('MALFORMED_PARAMETER', `Unknown parameter ${where}${unknown}`);
};

const text = (value: unknown, name: string): string => {
  if (typeof value !== 'string') throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${name} (must be a string)`);
  return value;
};

/** A price as a decimal string or a JSON number (written out as the number reads); the card checks its form. */
const price = (value: unknown, name: string): string => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${name} (must be a decimal string or number)`);
};

/** Every metric, '0' where the body names none: a metric a card does not price is free. */
const prices = (raw: unknown, where: string): MetricPrices => {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${where} (must be an object)`);
  const object = raw as Readonly<Record<string, unknown>>;
  refuseUnknown(object, USAGE_METRICS, `${where}.`);
  return Object.fromEntries(
    USAGE_METRICS.map((metric) => [metric, object[metric] === undefined ? '0' : price(object[metric], `${where}.${metric}`)]),
  ) as MetricPrices;
};

const capabilityPrices = (raw: unknown): CapabilityPrices[] => {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter capability_prices (must be a list)');
  return raw.map((entry: unknown, index) => {
    const where = `capability_prices[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${where} (must be an object)`);
    const object = entry as Readonly<Record<string, unknown>>;
    refuseUnknown(object, ENTRY_FIELDS, `${where}.`);
    return {
      capability: text(object.capability, `${where}.capability`),
      value: text(object.value, `${where}.value`),
      prices: prices(object.prices, `${where}.prices`),
    };
  });
};

/** PUT /v1/rate-cards/{name}: `{currency, effective_from, prices, capability_prices?}` (docs/usage.md). */
export const parseRateCard = (raw: unknown, now: DateTime): RateCardTerms => {
  const body = requireObject(raw);
  refuseUnknown(body, BODY_FIELDS, '');
  if (body.effective_from === undefined) throw invalid('MISSING_PARAMETER', 'Missing parameter effective_from');
  if (body.prices === undefined) throw invalid('MISSING_PARAMETER', 'Missing parameter prices');
  return {
    currency: text(body.currency, 'currency'),
    effectiveFrom: parseInstant('effective_from', text(body.effective_from, 'effective_from'), now),
    prices: prices(body.prices, 'prices'),
    capabilityPrices: capabilityPrices(body.capability_prices),
  };
};
