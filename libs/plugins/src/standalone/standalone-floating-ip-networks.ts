import type { FloatingIpLocation, FloatingIpNetworks } from '../ports/floating-ip-networks.port.js';

/** Standalone mode: any network id is accepted and no subnet is known. */
export class StandaloneFloatingIpNetworks implements FloatingIpNetworks {
  locate(): Promise<FloatingIpLocation> {
    return Promise.resolve({ subnetId: null });
  }
}
