import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../../libs/domain/src/index.js';
import { StandaloneHostInventory, hostHavingServers } from './host-inventory.js';

describe('hostHavingServers', () => {
  it('is upstream’s HostHavingServers: a conflict listing the servers and the host as the request named it', () => {
    const error = hostHavingServers('compute-1', ['a1', 'b2']);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'conflict', code: 'HOST_HAVING_SERVERS', message: 'Servers [a1, b2] found for host compute-1' });
  });
});

describe('StandaloneHostInventory', () => {
  it('lets any host go: the simulated cloud runs no servers of its own', async () => {
    await expect(new StandaloneHostInventory().checkRemovable()).resolves.toBeUndefined();
  });
});
