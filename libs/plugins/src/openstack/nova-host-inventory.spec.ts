import { describe, expect, it } from 'vitest';
import { NovaHostInventory } from './nova-host-inventory.js';
import { NovaClient } from './nova.client.js';
import { unreachableSession } from '../testing/unreachable-cloud.js';

const unreachableNova = (): NovaHostInventory => new NovaHostInventory(new NovaClient(unreachableSession()));

const info = {
  hypervisorHostname: 'compute-1',
  serviceName: 'compute-1',
  vcpus: 8,
  memoryMb: 16384,
  localGb: 100,
  cpuInfo: '{}',
  hypervisorType: 'QEMU',
  hypervisorVersion: 0,
  availabilityZone: 'nova',
};

describe('NovaHostInventory (the real Nova: test/int/openstack/host-inventory.int.spec.ts)', () => {
  it('refuses a registration stating the host’s facts without asking Nova, which reports them', async () => {
    await expect(unreachableNova().describe({ source: 'request', info, capabilities: {} })).rejects.toMatchObject({
      kind: 'invalid',
      code: 'HOST_FIELDS_FROM_NOVA',
    });
  });

  it('answers `unavailable` (503) when Nova cannot be reached, naming the failure', async () => {
    await expect(unreachableNova().checkRemovable(info)).rejects.toMatchObject({
      kind: 'unavailable',
      code: 'CLOUD_UNAVAILABLE',
      message: expect.stringMatching(
        /^Nova is unavailable, nothing was changed; try again later \(.*no answer from http:\/\/127\.0\.0\.1:9/,
      ),
    });
  });
});
