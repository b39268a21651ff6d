import { describe, expect, it } from 'vitest';
import { type MetricPrices, type RateCardCommand, USAGE_METRICS, rateCardDecider } from './rate-card.js';

const PRICES = Object.fromEntries(USAGE_METRICS.map((metric) => [metric, '0'])) as MetricPrices;
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
  ])('refuses %s', (_what, overrides) => {
    expect(() => rateCardDecider.decide(publish(overrides), rateCardDecider.initialState())).toThrow(
      expect.objectContaining({ code: 'INVALID_RATE_CARD', kind: 'invalid' }),
    );
  });
});
