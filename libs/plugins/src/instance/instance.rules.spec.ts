import { describe, expect, it } from 'vitest';
import { virtualInstanceReservation } from '#domain/lease/testing/lease.fixtures.js';
import { checkStartedInstanceChange } from './instance.rules.js';

const instances = virtualInstanceReservation('res-1');

describe('the instance rules as admission asks them, on the requested change', () => {
  it('a started instance reservation: fields a change leaves alone are not judged', () => {
    expect(() => checkStartedInstanceChange(instances, { amount: 2 })).not.toThrow();
    expect(() => checkStartedInstanceChange(instances, { amount: 2, affinity: null, vcpus: 2 })).not.toThrow();
    expect(() => checkStartedInstanceChange(instances, { amount: 2, affinity: true })).toThrow(
      expect.objectContaining({ kind: 'conflict' }),
    );
  });
});
