/**
 * A flavor of the standalone catalog, shaped like Nova's (the OpenStack driver reads Nova instead).
 * flavor:instance reservations copy its sizes and extra specs when they are made.
 */
export interface Flavor {
  readonly id: string;
  readonly name: string;
  readonly vcpus: number;
  readonly ram: number;
  readonly disk: number;
  readonly ephemeral: number;
  readonly swap: number;
  readonly rxtxFactor: number;
  readonly isPublic: boolean;
  readonly extraSpecs: Readonly<Record<string, string>>;
}

/** One stream for the whole catalog: flavors are few and admin-managed; ids and names stay unique. */
export const FLAVOR_CATALOG_STREAM = 'flavorcatalog-main';

export interface FlavorCatalogState {
  /** By flavor id. */
  readonly flavors: ReadonlyMap<string, Flavor>;
}
