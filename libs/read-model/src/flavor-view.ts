import type { Flavor } from '#domain/index.js';

/** A flavor as Nova's `GET /flavors/{id}` shows it (microversion 2.61+: with extra specs; no links). */
export interface FlavorView {
  readonly id: string;
  readonly name: string;
  readonly ram: number;
  readonly disk: number;
  /** Nova prints a swap of 0 as "". */
  readonly swap: number | '';
  readonly 'OS-FLV-EXT-DATA:ephemeral': number;
  readonly 'OS-FLV-DISABLED:disabled': boolean;
  readonly vcpus: number;
  readonly 'os-flavor-access:is_public': boolean;
  readonly rxtx_factor: number;
  readonly extra_specs: Readonly<Record<string, string>>;
}

export const toFlavorView = (flavor: Flavor): FlavorView => ({
  id: flavor.id,
  name: flavor.name,
  ram: flavor.ram,
  disk: flavor.disk,
  swap: flavor.swap === 0 ? '' : flavor.swap,
  'OS-FLV-EXT-DATA:ephemeral': flavor.ephemeral,
  'OS-FLV-DISABLED:disabled': false,
  vcpus: flavor.vcpus,
  'os-flavor-access:is_public': flavor.isPublic,
  rxtx_factor: flavor.rxtxFactor,
  extra_specs: { ...flavor.extraSpecs },
});
