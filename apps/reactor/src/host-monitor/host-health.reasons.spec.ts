import { describe, expect, it } from 'vitest';
import { notificationReasons } from '#application/reactions/host-health.reasons.js';
import { pollingReasons } from './host-health.reasons.js';

const service = (state: 'up' | 'down', status: 'enabled' | 'disabled', forced_down: boolean) => ({ state, status, forced_down });

describe('pollingReasons', () => {
  it.each([
    [service('up', 'enabled', false), []],
    [service('down', 'enabled', false), ['service_down']],
    [service('up', 'disabled', false), ['disabled']],
    [service('down', 'enabled', true), ['forced_down']],
    [service('down', 'disabled', true), ['disabled', 'forced_down']],
    [service('down', 'disabled', false), ['service_down', 'disabled']],
  ])('%o -> %o', (input, expected) => {
    expect(pollingReasons(input)).toEqual(expected);
  });
});

describe('notificationReasons agree with what polling sees', () => {
  it('sets disabled and forced_down from the payload', () => {
    expect(notificationReasons({ disabled: true, forcedDown: false }, { status: 'up' })).toEqual(['disabled']);
    expect(notificationReasons({ disabled: false, forcedDown: true }, { status: 'up' })).toEqual(['forced_down']);
    expect(notificationReasons({ disabled: false, forcedDown: false }, { status: 'down', reasons: ['disabled'], since: 'x' })).toEqual([]);
  });

  it('keeps the service_down only polling can see, unless forced down (Nova then says down anyway)', () => {
    const stopped = { status: 'down', reasons: ['service_down'], since: 'x' } as const;
    expect(notificationReasons({ disabled: true, forcedDown: false }, stopped)).toEqual(pollingReasons(service('down', 'disabled', false)));
    expect(notificationReasons({ disabled: false, forcedDown: true }, stopped)).toEqual(pollingReasons(service('down', 'enabled', true)));
  });
});
