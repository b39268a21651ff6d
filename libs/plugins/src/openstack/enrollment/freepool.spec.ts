import { describe, expect, it } from 'vitest';
import { type AvailabilityZone, zoneOfComputeHost } from '../nova.client.js';
import { FREEPOOL_ZONE_KEY, freepoolFor, isFreepool } from './freepool.js';

const TRAIT = { 'trait:CUSTOM_BLAZAR_FREEPOOL': 'required' };
const single = { name: 'freepool', perZone: false };
const perZone = { name: 'freepool', perZone: true };

describe('freepoolFor', () => {
  it('is the one freepool for every zone unless per zone', () => {
    expect(freepoolFor(single, 'az1')).toEqual({ name: 'freepool', metadata: TRAIT });
    expect(freepoolFor(single, '')).toEqual({ name: 'freepool', metadata: TRAIT });
  });

  it('per zone, is <name>-<zone> and names its zone in metadata', () => {
    expect(freepoolFor(perZone, 'az1')).toEqual({ name: 'freepool-az1', metadata: { ...TRAIT, [FREEPOOL_ZONE_KEY]: 'az1' } });
    expect(freepoolFor({ name: 'spare', perZone: true }, 'nova')).toEqual({
      name: 'spare-nova',
      metadata: { ...TRAIT, [FREEPOOL_ZONE_KEY]: 'nova' },
    });
  });

  it('per zone, keeps a host Nova puts in no zone in the plain freepool', () => {
    expect(freepoolFor(perZone, '')).toEqual({ name: 'freepool', metadata: TRAIT });
  });
});

describe('isFreepool', () => {
  it('knows the plain freepool and every zone’s, in either mode', () => {
    for (const layout of [single, perZone]) {
      expect(isFreepool(layout, { name: 'freepool', metadata: {} })).toBe(true);
      expect(isFreepool(layout, freepoolFor(perZone, 'az1'))).toBe(true);
    }
  });

  it('does not take an operator’s aggregate for one, even with a look-alike name', () => {
    expect(isFreepool(perZone, { name: 'freepool-az1', metadata: {} })).toBe(false);
    expect(isFreepool(perZone, { name: 'freepool-az1', metadata: { [FREEPOOL_ZONE_KEY]: 'az2' } })).toBe(false);
    expect(isFreepool(perZone, { name: 'reservation-1', metadata: TRAIT })).toBe(false);
  });
});

describe('zoneOfComputeHost', () => {
  const zones: AvailabilityZone[] = [
    { zoneName: 'internal', zoneState: { available: true }, hosts: { ctl: { 'nova-scheduler': { available: true, active: true } } } },
    { zoneName: 'az1', zoneState: { available: true }, hosts: { c1: { 'nova-compute': { available: true, active: true } } } },
    { zoneName: 'empty', zoneState: { available: false }, hosts: null },
  ];

  it('is the zone listing the host’s nova-compute, or none', () => {
    expect(zoneOfComputeHost(zones, 'c1')).toBe('az1');
    expect(zoneOfComputeHost(zones, 'ctl')).toBe('');
    expect(zoneOfComputeHost(zones, 'unknown')).toBe('');
  });
});
