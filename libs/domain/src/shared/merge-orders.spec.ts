import { describe, expect, it } from 'vitest';
import { mergeOrders } from './merge-orders.js';

describe('mergeOrders', () => {
  it('Given lists sharing a tail, When merged, Then each list keeps its order and ties go to the earlier list', () => {
    const merged = mergeOrders([
      ['host_hours', 'vcpu_hours', 'memory_mb_hours'],
      ['instance_hours', 'vcpu_hours', 'memory_mb_hours'],
      ['floating_ip_hours'],
    ]);
    expect(merged).toEqual(['host_hours', 'instance_hours', 'vcpu_hours', 'memory_mb_hours', 'floating_ip_hours']);
  });

  it('Given one list twice and an empty one, When merged, Then every name appears once', () => {
    expect(mergeOrders([['a', 'b'], [], ['a', 'b']])).toEqual(['a', 'b']);
  });

  it('Given two lists ordering two names both ways, When merged, Then it throws', () => {
    expect(() =>
      mergeOrders([
        ['a', 'b'],
        ['b', 'a'],
      ]),
    ).toThrow(/No order keeps every list's/);
  });
});
