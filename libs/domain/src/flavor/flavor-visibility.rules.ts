import { invalid } from '../shared/errors.js';
import type { Flavor, FlavorCatalogState } from './flavor.types.js';

/** Who looks a flavor up: admins see private flavors too. */
export interface FlavorViewer {
  readonly isAdmin: boolean;
}

/**
 * A flavor a reservation may be made from: Nova answers a private flavor the caller has no access to
 * as it answers one that does not exist (here only admins have access to private ones).
 */
export const visibleFlavor = (catalog: FlavorCatalogState, flavorId: string, viewer: FlavorViewer): Flavor => {
  const flavor = catalog.flavors.get(flavorId);
  if (flavor === undefined || (!flavor.isPublic && !viewer.isAdmin))
    throw invalid('FLAVOR_NOT_FOUND', `Flavor ${flavorId} could not be found.`);
  return flavor;
};
