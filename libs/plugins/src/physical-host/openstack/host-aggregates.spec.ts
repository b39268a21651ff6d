import { describe, expect, it } from 'vitest';
import { reservationAggregateHolding } from '../../openstack/effects/blazar-aggregates.js';
import type { Aggregate } from '../../openstack/nova.client.js';
import { aggregatesOf, heldAggregateOf } from './host-aggregates.js';

const ID = '0ebaeb95-7ab3-4bdc-af0f-216d24e5a145';
const PROJECT = 'p1';

let ids = 0;
const aggregate = (
  name: string,
  hosts: readonly string[],
  metadata: Record<string, string> = {},
  zone: string | null = null,
): Aggregate => ({
  id: ++ids,
  uuid: `uuid-${ids}`,
  name,
  availability_zone: zone,
  hosts,
  metadata,
});

const freepool = aggregate('freepool', ['h3'], { 'trait:CUSTOM_BLAZAR_FREEPOOL': 'required' });
const blazarHolding = aggregate(ID, ['h1'], { 'blazar:owner': PROJECT }, `blazar_${ID}`);
const blazarEmpty = aggregate(ID, [], { 'blazar:owner': PROJECT }, `blazar_${ID}`);
const ours = aggregate(`reservation-${ID}`, ['h1'], { 'blazar:owner': PROJECT, reservation: ID });
const operatorsNamedById = aggregate(ID, ['h1']);

describe('heldAggregateOf', () => {
  it("is Blazar's aggregate, named by the reservation id, once it holds hosts (an imported active reservation)", () => {
    expect(heldAggregateOf([freepool, blazarHolding], ID)).toBe(blazarHolding);
    expect(heldAggregateOf([freepool, blazarHolding, ours], ID)).toBe(blazarHolding);
  });

  it("is Leasehold's `reservation-<id>` otherwise, and none before the start", () => {
    expect(heldAggregateOf([freepool, blazarEmpty, ours], ID)).toBe(ours);
    expect(heldAggregateOf([freepool, blazarEmpty], ID)).toBeNull();
    expect(heldAggregateOf([freepool], ID)).toBeNull();
  });

  it('takes an aggregate named by the id but without Blazar’s owner key for none of Blazar’s', () => {
    expect(heldAggregateOf([freepool, operatorsNamedById], ID)).toBeNull();
  });
});

describe('aggregatesOf', () => {
  it("lists Leasehold's and Blazar's, held hosts or not", () => {
    expect(aggregatesOf([freepool, blazarEmpty, ours], ID)).toEqual([ours, blazarEmpty]);
    expect(aggregatesOf([freepool, operatorsNamedById], ID)).toEqual([]);
  });
});

describe('reservationAggregateHolding', () => {
  it("finds the reservation's aggregate, Blazar's or Leasehold's, that lists a host; never the freepool", () => {
    expect(reservationAggregateHolding([freepool, blazarHolding], 'h1')).toBe(blazarHolding);
    expect(reservationAggregateHolding([freepool, ours], 'h1')).toBe(ours);
    expect(reservationAggregateHolding([freepool, blazarHolding], 'h3')).toBeNull();
    expect(reservationAggregateHolding([freepool, operatorsNamedById], 'h1')).toBeNull();
  });
});
