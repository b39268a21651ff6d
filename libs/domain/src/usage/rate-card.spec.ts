import { describe, expect, it } from 'vitest';
import { USAGE_METRICS } from '#plugins/reservation-holdings.js';
import { type MetricPrices, type RateCardCommand, pricesOnHosts, rateCardDecider } from './rate-card.js';

const PRICES = Object.fromEntries(USAGE_METRICS.metrics.map((metric) => [metric, '0'])) as MetricPrices;
const publish = (overrides: Partial<RateCardCommand['data']> = {}): RateCardCommand => ({
  type: 'PublishRateCard',
  data: {
    name: 'std',
    currency: 'EUR',
    effectiveFrom: '2030-01-01T00:00:00.000Z',
    prices: { ...PRICES, host_hours: '1.5' },
    capabilityPrices: [],
    now: '2029-12-01T00:00:00.000Z',
    ...overrides,
  },
});

describe('rate card: each publication is the next version', () => {
  it('the first publication is version 1, the next version 2', () => {
    const [first] = rateCardDecider.decide(publish(), rateCardDecider.initialState());
    expect(first).toEqual({
      type: 'RateCard.Published',
      data: {
        name: 'std',
        version: 1,
        currency: 'EUR',
        effectiveFrom: '2030-01-01T00:00:00.000Z',
        prices: { ...PRICES, host_hours: '1.5' },
        capabilityPrices: [],
        publishedAt: '2029-12-01T00:00:00.000Z',
      },
    });
    const state = rateCardDecider.evolve(rateCardDecider.initialState(), first as never);
    expect(rateCardDecider.decide(publish(), state)[0]?.data.version).toBe(2);
  });

  it.each([
    ['a name with a space', { name: 'my card' }],
    ['a name with a colon (it separates the version in reports)', { name: 'std:2' }],
    ['a currency that is not ISO 4217', { currency: 'euro' }],
    ['a negative price', { prices: { ...PRICES, vcpu_hours: '-1' } }],
    ['a price with 7 fraction digits', { prices: { ...PRICES, vcpu_hours: '0.0000001' } }],
    ['a price in exponent form', { prices: { ...PRICES, vcpu_hours: '1e-7' } }],
    ['a capability price without a capability', { capabilityPrices: [{ capability: '', value: 'gpu', prices: PRICES }] }],
    ['a bad capability price', { capabilityPrices: [{ capability: 'node_type', value: 'gpu', prices: { ...PRICES, host_hours: 'x' } }] }],
    ['a capability price that names no metric', { capabilityPrices: [{ capability: 'node_type', value: 'gpu', prices: {} }] }],
  ])('refuses %s', (_what, overrides) => {
    expect(() => rateCardDecider.decide(publish(overrides), rateCardDecider.initialState())).toThrow(
      expect.objectContaining({ code: 'INVALID_RATE_CARD', kind: 'invalid' }),
    );
  });
});

describe('rate card: a capability price overrides only the metrics it names', () => {
  const card = {
    prices: { ...PRICES, host_hours: '1.5', vcpu_hours: '0.01' },
    capabilityPrices: [
      { capability: 'node_type', value: 'gpu', prices: { host_hours: '3.5' } },
      { capability: 'node_type', value: 'gpu', prices: { vcpu_hours: '9' } },
      { capability: 'su_factor', value: '2', prices: { vcpu_hours: '0.02', memory_mb_hours: '0' } },
    ],
  };

  it("a host matching an entry pays its named prices and the card's for every other metric", () => {
    expect(pricesOnHosts(card)({ node_type: 'gpu' })).toEqual({ ...PRICES, host_hours: '3.5', vcpu_hours: '0.01' });
    expect(pricesOnHosts(card)({ su_factor: '2' })).toEqual({ ...PRICES, host_hours: '1.5', vcpu_hours: '0.02', memory_mb_hours: '0' });
  });

  it("the first entry that matches wins; a host matching none pays the card's prices", () => {
    expect(pricesOnHosts(card)({ node_type: 'gpu', su_factor: '2' }).vcpu_hours).toBe('0.01');
    expect(pricesOnHosts(card)({ node_type: 'compute' })).toEqual(card.prices);
    const onHosts = pricesOnHosts(card);
    expect(onHosts({ node_type: 'gpu', rack: 'r1' })).toBe(onHosts({ node_type: 'gpu', rack: 'r2' }));
  });

  it('a card whose entries name every metric (as every card published before did) overrides them all', () => {
    const full = {
      prices: card.prices,
      capabilityPrices: [{ capability: 'node_type', value: 'gpu', prices: { ...PRICES, host_hours: '4' } }],
    };
    expect(pricesOnHosts(full)({ node_type: 'gpu' })).toEqual({ ...PRICES, host_hours: '4' });
  });

  it('a publication keeps only the metrics an entry names', () => {
    const [event] = rateCardDecider.decide(
      publish({ capabilityPrices: [{ capability: 'node_type', value: 'gpu', prices: { host_hours: '3.5' } }] }),
      rateCardDecider.initialState(),
    );
    expect(event?.data.capabilityPrices).toEqual([{ capability: 'node_type', value: 'gpu', prices: { host_hours: '3.5' } }]);
  });
});
