import type { Projection } from '../projection.js';
import { allocationsProjection } from './allocations.projection.js';
import { hostsProjection } from './hosts.projection.js';
import { leasesProjection } from './leases.projection.js';
import { propertiesProjection } from './properties.projection.js';

export { allocationId, allocationsProjection } from './allocations.projection.js';
export { hostsProjection } from './hosts.projection.js';
export { leasesProjection } from './leases.projection.js';
export { propertiesProjection, propertyId } from './properties.projection.js';

/** Every read-model projection, in the order they are applied to each event. */
export const READ_MODEL_PROJECTIONS: readonly Projection[] = [leasesProjection, hostsProjection, allocationsProjection, propertiesProjection];
