import type { Projection } from '../projection.js';
import { allocationsProjection } from './allocations.projection.js';
import { availabilityProjection } from './availability.projection.js';
import { flavorsProjection } from './flavors.projection.js';
import { floatingIpAllocationsProjection } from './floatingip-allocations.projection.js';
import { floatingIpsProjection } from './floatingips.projection.js';
import { hostsProjection } from './hosts.projection.js';
import { leasesProjection } from './leases.projection.js';
import { networkAllocationsProjection } from './network-allocations.projection.js';
import { networksProjection } from './networks.projection.js';
import { propertiesProjection } from './properties.projection.js';

export { allocationId, allocationsProjection } from './allocations.projection.js';
export { availabilityIntervalId, availabilityProjection } from './availability.projection.js';
export { flavorsProjection } from './flavors.projection.js';
export { floatingIpAllocationId, floatingIpAllocationsProjection } from './floatingip-allocations.projection.js';
export { floatingIpsProjection } from './floatingips.projection.js';
export { hostsProjection } from './hosts.projection.js';
export { leasesProjection } from './leases.projection.js';
export { networkAllocationId, networkAllocationsProjection } from './network-allocations.projection.js';
export { networksProjection } from './networks.projection.js';
export { propertiesProjection, propertyId } from './properties.projection.js';

/** Every read-model projection, in the order they are applied to each event. */
export const READ_MODEL_PROJECTIONS: readonly Projection[] = [
  leasesProjection,
  hostsProjection,
  allocationsProjection,
  propertiesProjection,
  floatingIpsProjection,
  floatingIpAllocationsProjection,
  networksProjection,
  networkAllocationsProjection,
  flavorsProjection,
  availabilityProjection,
];
