import { describe, expect, it } from 'vitest';
import { foldEvents } from '../shared/decider.js';
import { type FlavorCatalogEvent, flavorCatalogDecider } from './flavor-catalog.js';
import { visibleFlavor } from './flavor-visibility.rules.js';
import type { Flavor } from './flavor.types.js';

const flavor = (id: string, isPublic: boolean): Flavor => ({
  id,
  name: `m1.${id}`,
  vcpus: 1,
  ram: 512,
  disk: 1,
  ephemeral: 0,
  swap: 0,
  rxtxFactor: 1,
  isPublic,
  extraSpecs: {},
});
const added = (f: Flavor): FlavorCatalogEvent => ({
  type: 'FlavorCatalog.FlavorAdded',
  data: { flavor: f, addedAt: '2030-01-01T00:00:00.000Z' },
});

/** Given the catalog's events, when `viewer` looks `flavorId` up. */
const lookUp = (given: readonly FlavorCatalogEvent[], flavorId: string, isAdmin: boolean) => () =>
  visibleFlavor(foldEvents(flavorCatalogDecider, given), flavorId, { isAdmin });

describe('which flavor a reservation may be made from', () => {
  const catalog = [added(flavor('public', true)), added(flavor('private', false))];

  it('a public flavor, for anyone', () => {
    expect(lookUp(catalog, 'public', false)()).toEqual(flavor('public', true));
  });

  it('a private flavor, for an admin', () => {
    expect(lookUp(catalog, 'private', true)()).toEqual(flavor('private', false));
  });

  it('a private flavor is not found by anyone else, as one that does not exist (400, as Nova answers)', () => {
    expect(lookUp(catalog, 'private', false)).toThrow(
      expect.objectContaining({ code: 'FLAVOR_NOT_FOUND', kind: 'invalid', message: 'Flavor private could not be found.' }),
    );
    expect(lookUp(catalog, 'gone', true)).toThrow(
      expect.objectContaining({ code: 'FLAVOR_NOT_FOUND', message: 'Flavor gone could not be found.' }),
    );
  });

  it('a removed flavor is not found', () => {
    const removed: FlavorCatalogEvent = {
      type: 'FlavorCatalog.FlavorRemoved',
      data: { flavorId: 'public', name: 'm1.public', removedAt: '2030-01-02T00:00:00.000Z' },
    };
    expect(lookUp([...catalog, removed], 'public', true)).toThrow(expect.objectContaining({ code: 'FLAVOR_NOT_FOUND' }));
  });
});
