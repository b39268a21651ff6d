/** Where a floating IP may be set aside: the subnet of the external network that holds the address. */
export interface FloatingIpLocation {
  /** Null when no network service was asked (standalone mode). */
  readonly subnetId: string | null;
}

/**
 * The network service behind floating-IP registration. The OpenStack driver will ask Neutron that
 * the network exists, that a subnet contains the address and that Neutron does not use it itself,
 * throwing a DomainError to refuse; standalone mode has nobody to ask.
 */
export interface FloatingIpNetworks {
  locate(networkId: string, address: string): Promise<FloatingIpLocation>;
}

export const FLOATING_IP_NETWORKS = Symbol('FLOATING_IP_NETWORKS');

/** Standalone mode: any network id is accepted and no subnet is known. */
export class StandaloneFloatingIpNetworks implements FloatingIpNetworks {
  locate(): Promise<FloatingIpLocation> {
    return Promise.resolve({ subnetId: null });
  }
}
