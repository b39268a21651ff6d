/** One reservation's hold on a registered floating IP: [startDate, endDate), ms for fast search. */
export interface FloatingIpBooking {
  readonly reservationId: string;
  readonly leaseId: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly start: number;
  readonly end: number;
}

/** A public address set aside for reservations (Blazar's floatingips table). */
export interface FloatingIpInfo {
  readonly floatingIpId: string;
  readonly networkId: string;
  /** Subnet of the network that contains the address; null where no Neutron was asked (standalone). */
  readonly subnetId: string | null;
  readonly address: string;
}

/** Stream of the floating-IP registry: one address per external network, registered once. */
export const FLOATING_IP_REGISTRY_STREAM = 'floatingipregistry-main';

export interface FloatingIpRegistryState {
  /** `${networkId} ${address}` -> floating IP id, for registered addresses only. */
  readonly byAddress: ReadonlyMap<string, string>;
}

export const floatingIpRegistryKey = (networkId: string, address: string): string => `${networkId} ${address}`;
