import { describe, expect, it } from 'vitest';
import { amountFor, hostsOf, parseZoneRule } from './zone-rule.js';

const floor = (text: string | undefined) => parseZoneRule('LEASEHOLD_GENERAL_POOL_FLOOR', text, { percentAllowed: true });

describe('per-zone guardrail settings', () => {
  it('an amount alone applies to every zone; a zone of its own overrides it', () => {
    const rule = floor('1, nova:25%,az2:3');
    expect(amountFor(rule, 'nova')).toEqual({ kind: 'percent', percent: 25 });
    expect(amountFor(rule, 'az2')).toEqual({ kind: 'hosts', hosts: 3 });
    expect(amountFor(rule, 'elsewhere')).toEqual({ kind: 'hosts', hosts: 1 });
  });

  it('unset or empty is no rule: no zone has an amount', () => {
    expect(amountFor(floor(undefined), 'nova')).toBeNull();
    expect(amountFor(floor('  '), 'nova')).toBeNull();
    expect(amountFor(floor('az2:1'), 'nova')).toBeNull();
  });

  it('a share of a zone rounds up: 10% of 5 hosts keeps 1, 25% of 8 keeps 2', () => {
    expect(hostsOf({ kind: 'percent', percent: 10 }, 5)).toBe(1);
    expect(hostsOf({ kind: 'percent', percent: 25 }, 8)).toBe(2);
    expect(hostsOf({ kind: 'hosts', hosts: 2 }, 8)).toBe(2);
  });

  it.each([
    ['-1', "'-1' is not a number of hosts or a percentage"],
    ['nova:x', "'x' is not a number of hosts or a percentage"],
    ['120%', "'120%' is not"],
    ['1,2', 'more than one amount for every zone'],
    ['nova:1,nova:2', 'a zone named twice'],
    [':3', 'names no zone'],
  ])('refuses %s at start-up, naming the setting', (text, message) => {
    expect(() => floor(text)).toThrow(`LEASEHOLD_GENERAL_POOL_FLOOR: `);
    expect(() => floor(text)).toThrow(message);
  });

  it('the headroom counts hosts only: a percentage is refused', () => {
    expect(() => parseZoneRule('LEASEHOLD_FREEPOOL_HEADROOM', '10%', { percentAllowed: false })).toThrow(
      "LEASEHOLD_FREEPOOL_HEADROOM: '10%' is not a number of hosts",
    );
  });
});
