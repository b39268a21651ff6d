import { describe, expect, it } from 'vitest';
import type { HostInfo } from '#domain/index.js';
import { StandaloneHostInventory } from './standalone-host-inventory.js';

const info: HostInfo = {
  hypervisorHostname: 'compute-1',
  serviceName: 'compute-1',
  vcpus: 8,
  memoryMb: 16384,
  localGb: 100,
  cpuInfo: '{}',
  hypervisorType: 'standalone',
  hypervisorVersion: 0,
  availabilityZone: '',
};

describe('StandaloneHostInventory', () => {
  it('takes the registration’s word for the host’s facts', async () => {
    await expect(new StandaloneHostInventory().describe({ source: 'request', info, capabilities: { gpu: 'true' } })).resolves.toEqual({
      info,
      capabilities: { gpu: 'true' },
    });
  });

  it('refuses a registration that only names the host: no cloud reports its facts', async () => {
    await expect(new StandaloneHostInventory().describe({ source: 'cloud', name: 'compute-1', capabilities: {} })).rejects.toMatchObject({
      kind: 'invalid',
      code: 'HOST_FACTS_MISSING',
    });
  });

  it('lets any host go: the simulated cloud runs no servers of its own', async () => {
    await expect(new StandaloneHostInventory().checkRemovable()).resolves.toBeUndefined();
  });
});
