import { describe, expect, it } from 'vitest';
import { foldEvents } from '../shared/decider.js';
import { DeciderSpecification } from '../shared/specification.js';
import { type FlavorCatalogCommand, type FlavorCatalogEvent, flavorCatalogDecider } from './flavor-catalog.js';
import { FLAVOR_CATALOG_STREAM, type Flavor } from './flavor.types.js';

const NOW = '2030-01-01T09:00:00.000Z';

const flavor = (id: string, overrides: Partial<Flavor> = {}): Flavor => ({
  id,
  name: `m1.${id}`,
  vcpus: 2,
  ram: 4096,
  disk: 20,
  ephemeral: 0,
  swap: 0,
  rxtxFactor: 1,
  isPublic: true,
  extraSpecs: { 'hw:cpu_policy': 'dedicated' },
  ...overrides,
});

const added = (f: Flavor, addedAt = NOW): FlavorCatalogEvent => ({ type: 'FlavorCatalog.FlavorAdded', data: { flavor: f, addedAt } });

const removed = (flavorId: string, name: string, removedAt = NOW): FlavorCatalogEvent => ({
  type: 'FlavorCatalog.FlavorRemoved',
  data: { flavorId, name, removedAt },
});

const add = (f: Flavor, now = NOW): FlavorCatalogCommand => ({ type: 'AddFlavor', data: { flavor: f, now } });

const remove = (flavorId: string, now = NOW): FlavorCatalogCommand => ({ type: 'RemoveFlavor', data: { flavorId, now } });

const given = DeciderSpecification.for(flavorCatalogDecider);

describe('AddFlavor', () => {
  describe('When the catalog is empty', () => {
    it('adds the flavor with its sizes and extra specs', () => {
      given([])
        .when(add(flavor('small')))
        .then([added(flavor('small'))]);
    });

    it.each([
      { name: 'disk 0 (boot from volume)', overrides: { disk: 0 } },
      { name: 'ephemeral and swap', overrides: { ephemeral: 10, swap: 512 } },
      { name: 'a fractional rxtx factor', overrides: { rxtxFactor: 0.5 } },
      { name: 'a name of exactly 255 characters', overrides: { name: 'n'.repeat(255) } },
      { name: 'a private flavor without extra specs', overrides: { isPublic: false, extraSpecs: {} } },
      { name: 'one vcpu and 1 MB of ram', overrides: { vcpus: 1, ram: 1 } },
    ])('accepts $name', ({ overrides }: { overrides: Partial<Flavor> }) => {
      given([])
        .when(add(flavor('small', overrides)))
        .then([added(flavor('small', overrides))]);
    });

    it('accepts an id of exactly 255 characters', () => {
      const id = 'i'.repeat(255);
      given([])
        .when(add(flavor(id, { name: 'long-id' })))
        .then([added(flavor(id, { name: 'long-id' }))]);
    });
  });

  describe('When the flavor is malformed', () => {
    it.each([
      { name: 'an empty name', overrides: { name: '' }, message: 'Malformed parameter name' },
      { name: 'a blank name', overrides: { name: '   ' }, message: 'Malformed parameter name' },
      { name: 'a name of 256 characters', overrides: { name: 'n'.repeat(256) }, message: 'Malformed parameter name' },
      { name: 'an empty id', overrides: { id: '' }, message: 'Malformed parameter id' },
      { name: 'an id of 256 characters', overrides: { id: 'i'.repeat(256) }, message: 'Malformed parameter id' },
      { name: 'vcpus 0', overrides: { vcpus: 0 }, message: 'Malformed parameter vcpus' },
      { name: 'fractional vcpus', overrides: { vcpus: 1.5 }, message: 'Malformed parameter vcpus' },
      { name: 'NaN vcpus', overrides: { vcpus: Number.NaN }, message: 'Malformed parameter vcpus' },
      { name: 'ram 0', overrides: { ram: 0 }, message: 'Malformed parameter ram' },
      { name: 'fractional ram', overrides: { ram: 512.5 }, message: 'Malformed parameter ram' },
      { name: 'negative disk', overrides: { disk: -1 }, message: 'Malformed parameter disk' },
      { name: 'fractional disk', overrides: { disk: 0.5 }, message: 'Malformed parameter disk' },
      { name: 'negative ephemeral', overrides: { ephemeral: -1 }, message: 'Malformed parameter OS-FLV-EXT-DATA:ephemeral' },
      { name: 'fractional ephemeral', overrides: { ephemeral: 1.5 }, message: 'Malformed parameter OS-FLV-EXT-DATA:ephemeral' },
      { name: 'negative swap', overrides: { swap: -1 }, message: 'Malformed parameter swap' },
      { name: 'fractional swap', overrides: { swap: 0.5 }, message: 'Malformed parameter swap' },
      { name: 'rxtx factor 0', overrides: { rxtxFactor: 0 }, message: 'Malformed parameter rxtx_factor' },
      { name: 'a negative rxtx factor', overrides: { rxtxFactor: -1 }, message: 'Malformed parameter rxtx_factor' },
      { name: 'a NaN rxtx factor', overrides: { rxtxFactor: Number.NaN }, message: 'Malformed parameter rxtx_factor' },
      { name: 'vcpus beyond safe integers', overrides: { vcpus: 2 ** 53 }, message: 'Malformed parameter vcpus' },
    ])('refuses $name', ({ overrides, message }: { overrides: Partial<Flavor>; message: string }) => {
      given([])
        .when(add(flavor('small', overrides)))
        .thenThrows('MALFORMED_PARAMETER', message);
    });

    it('reports the name before the sizes', () => {
      given([])
        .when(add(flavor('small', { name: '', vcpus: 0 })))
        .thenThrows('MALFORMED_PARAMETER', 'Malformed parameter name');
    });

    it('reports a malformed flavor before a duplicate', () => {
      given([added(flavor('small'))])
        .when(add(flavor('small', { vcpus: 0 })))
        .thenThrows('MALFORMED_PARAMETER');
    });
  });

  describe('When flavors exist', () => {
    const history = (): FlavorCatalogEvent[] => [added(flavor('small')), added(flavor('large', { vcpus: 8, ram: 16384 }))];

    it('adds another flavor', () => {
      given(history())
        .when(add(flavor('medium')))
        .then([added(flavor('medium'))]);
    });

    it('refuses an id already in the catalog', () => {
      given(history())
        .when(add(flavor('small', { name: 'm1.other' })))
        .thenThrows('FLAVOR_EXISTS', 'Flavor with ID small already exists.');
    });

    it('refuses a name already in the catalog', () => {
      given(history())
        .when(add(flavor('other', { name: 'm1.large' })))
        .thenThrows('FLAVOR_EXISTS', 'Flavor with name m1.large already exists.');
    });

    it('reports the id before the name when both are taken', () => {
      given(history())
        .when(add(flavor('small', { name: 'm1.large' })))
        .thenThrows('FLAVOR_EXISTS', 'Flavor with ID small');
    });

    it('accepts a name differing only in case', () => {
      given(history())
        .when(add(flavor('other', { name: 'M1.LARGE' })))
        .then([added(flavor('other', { name: 'M1.LARGE' }))]);
    });

    it('accepts the id and name of a removed flavor again', () => {
      given([...history(), removed('small', 'm1.small')])
        .when(add(flavor('small', { vcpus: 4 })))
        .then([added(flavor('small', { vcpus: 4 }))]);
    });
  });
});

describe('RemoveFlavor', () => {
  it('refuses an unknown flavor', () => {
    given([]).when(remove('nope')).thenThrows('FLAVOR_NOT_FOUND', 'Flavor nope could not be found.');
  });

  it('refuses a flavor already removed', () => {
    given([added(flavor('small')), removed('small', 'm1.small')])
      .when(remove('small'))
      .thenThrows('FLAVOR_NOT_FOUND');
  });

  it('removes a flavor, naming it', () => {
    given([added(flavor('small')), added(flavor('large'))])
      .when(remove('small'))
      .then([removed('small', 'm1.small')]);
  });

  it('removes by id, not by name', () => {
    given([added(flavor('small'))])
      .when(remove('m1.small'))
      .thenThrows('FLAVOR_NOT_FOUND');
  });
});

describe('evolve', () => {
  it('starts empty', () => {
    expect(flavorCatalogDecider.initialState().flavors.size).toBe(0);
  });

  it('keeps added flavors by id and forgets removed ones', () => {
    const state = foldEvents(flavorCatalogDecider, [added(flavor('small')), added(flavor('large')), removed('small', 'm1.small')]);
    expect([...state.flavors.keys()]).toEqual(['large']);
    expect(state.flavors.get('large')).toEqual(flavor('large'));
  });

  it('does not change the state it is given', () => {
    const before = foldEvents(flavorCatalogDecider, [added(flavor('small'))]);
    flavorCatalogDecider.evolve(before, removed('small', 'm1.small'));
    expect(before.flavors.has('small')).toBe(true);
  });

  it('names one stream for the catalog', () => {
    expect(FLAVOR_CATALOG_STREAM).toBe('flavorcatalog-main');
  });
});
