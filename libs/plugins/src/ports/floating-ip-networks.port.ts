/** Where a floating IP may be set aside: the subnet of the external network that holds the address. */
export interface FloatingIpLocation {
  /** Null when no network service was asked (standalone mode). */
  readonly subnetId: string | null;
}

/**
 * The network service behind floating-IP registration, asked before deciding. The OpenStack adapter asks
 * Neutron that the network exists, that a subnet holds the address and that Neutron does not hand it
 * out itself, throwing a DomainError to refuse (`unavailable` when Neutron cannot answer); standalone
 * mode has nobody to ask.
 */
export interface FloatingIpNetworks {
  locate(networkId: string, address: string): Promise<FloatingIpLocation>;
}
