import { describe, expect, it } from 'vitest';
import { EventVersionTooNewError, STORED_EVENT_VERSIONS, storedVersionOf, upcast } from './event-versions.js';

describe('stored event versions', () => {
  it('stores a type that never changed shape at version 1 and reads it untouched', () => {
    const data = { leaseId: 'l-1' };
    expect(storedVersionOf('Lease.Created')).toBe(1);
    expect(upcast('Lease.Created', 1, data)).toBe(data);
  });

  it('has an upcaster for every version below the current one', () => {
    for (const [type, { current, upcasters }] of Object.entries(STORED_EVENT_VERSIONS))
      for (let version = 1; version < current; version++) expect(upcasters[version], `${type} v${version}`).toBeTypeOf('function');
  });

  it('reads a refusal stored before it named its lease as naming none, and keeps the lease of one that did', () => {
    const refusal = { operation: 'lease:update', method: 'PUT', path: '/v1/leases/l-1', status: 409, code: 'C', reason: 'r', at: 'a' };
    expect(upcast('Audit.WriteRefused', 1, refusal)).toEqual({ ...refusal, leaseId: null, leaseName: null });
    expect(upcast('Audit.WriteRefused', 1, { ...refusal, leaseId: 'l-1', leaseName: null })).toEqual({
      ...refusal,
      leaseId: 'l-1',
      leaseName: null,
    });
  });

  it('refuses a version newer than this build knows, naming the type and both versions', () => {
    expect(() => upcast('Lease.Created', 2, {})).toThrow(EventVersionTooNewError);
    expect(() => upcast('Audit.WriteRefused', 3, {})).toThrow(/Audit\.WriteRefused is stored at version 3, newer than this build's 2/);
  });
});
