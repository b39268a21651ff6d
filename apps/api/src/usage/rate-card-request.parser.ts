import type { DateTime } from 'luxon';
import { type CapabilityPrices, type MetricOverrides, type MetricPrices, type RateCardTerms, everyMetric, invalid } from '#domain/index.js';
import { USAGE_METRICS } from '#plugins/reservation-holdings.js';
import { parseInstant } from '../http/blazar-dates.js';
import { type FieldPath, fieldName } from '../http/input-rules.js';
import { refuseUnknownFields, requireObject } from '../http/validate-body.js';

const BODY_FIELDS = ['currency', 'effective_from', 'prices', 'capability_prices'];
const ENTRY_FIELDS = ['capability', 'value', 'prices'];

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

/** The metrics the body prices, and only those. */
const namedPrices = (raw: unknown, at: FieldPath): MetricOverrides => {
  const where = fieldName(at);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${where} (must be an object)`);
  const object = raw as Readonly<Record<string, unknown>>;
  refuseUnknownFields(object, USAGE_METRICS.metrics, at);
  return Object.fromEntries(
    USAGE_METRICS.metrics
      .filter((metric) => object[metric] !== undefined)
      .map((metric) => [metric, price(object[metric], `${where}.${metric}`)]),
  );
};

/** Every metric, '0' where the body names none. */
const prices = (raw: unknown, at: FieldPath): MetricPrices => everyMetric(USAGE_METRICS, namedPrices(raw, at));

const capabilityPrices = (raw: unknown): CapabilityPrices[] => {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter capability_prices (must be a list)');
  return raw.map((entry: unknown, index) => {
    const where = `capability_prices[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${where} (must be an object)`);
    const object = entry as Readonly<Record<string, unknown>>;
    refuseUnknownFields(object, ENTRY_FIELDS, ['capability_prices', index]);
    return {
      capability: text(object.capability, `${where}.capability`),
      value: text(object.value, `${where}.value`),
      // only what it names: the card's prices stand for every other metric
      prices: namedPrices(object.prices, ['capability_prices', index, 'prices']),
    };
  });
};

/** PUT /v1/rate-cards/{name}: `{currency, effective_from, prices, capability_prices?}` (docs/usage.md). */
export const parseRateCard = (raw: unknown, now: DateTime): RateCardTerms => {
  const body = requireObject(raw);
  refuseUnknownFields(body, BODY_FIELDS);
  if (body.effective_from === undefined) throw invalid('MISSING_PARAMETER', 'Missing parameter effective_from');
  if (body.prices === undefined) throw invalid('MISSING_PARAMETER', 'Missing parameter prices');
  return {
    currency: text(body.currency, 'currency'),
    effectiveFrom: parseInstant('effective_from', text(body.effective_from, 'effective_from'), now),
    prices: prices(body.prices, ['prices']),
    capabilityPrices: capabilityPrices(body.capability_prices),
  };
};
