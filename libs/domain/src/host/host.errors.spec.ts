import { describe, expect, it } from 'vitest';
import { DomainError } from '../shared/errors.js';
import { hostHavingServers } from './host.errors.js';

describe('hostHavingServers', () => {
  it('is upstream’s HostHavingServers: a conflict listing the servers and the host as the request named it', () => {
    const error = hostHavingServers('compute-1', ['a1', 'b2']);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'conflict', code: 'HOST_HAVING_SERVERS', message: 'Servers [a1, b2] found for host compute-1' });
  });
});
