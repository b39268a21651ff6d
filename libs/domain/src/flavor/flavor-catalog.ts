import type { Command, Decider, DomainEvent } from '../shared/decider.js';
import { conflict, invalid, notFound } from '../shared/errors.js';
import type { Flavor, FlavorCatalogState } from './flavor.types.js';

export type FlavorCatalogEvent =
  | DomainEvent<'FlavorCatalog.FlavorAdded', { readonly flavor: Flavor; readonly addedAt: string }>
  | DomainEvent<'FlavorCatalog.FlavorRemoved', { readonly flavorId: string; readonly name: string; readonly removedAt: string }>;

export type FlavorCatalogCommand =
  | Command<'AddFlavor', { readonly flavor: Flavor; readonly now: string }>
  | Command<'RemoveFlavor', { readonly flavorId: string; readonly now: string }>;

const MAX_NAME_LENGTH = 255;

/** Nova's own checks on a new flavor (sizes are non-negative integers; vcpus and ram at least 1). */
const checkFlavor = (flavor: Flavor): void => {
  if (flavor.name.trim().length === 0 || flavor.name.length > MAX_NAME_LENGTH) {
    throw invalid('MALFORMED_PARAMETER', 'Malformed parameter name: 1 to 255 characters');
  }
  if (flavor.id.length === 0 || flavor.id.length > MAX_NAME_LENGTH) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter id');
  const atLeast = (value: number, min: number): boolean => Number.isSafeInteger(value) && value >= min;
  if (!atLeast(flavor.vcpus, 1)) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter vcpus (must be an integer >= 1)');
  if (!atLeast(flavor.ram, 1)) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter ram (must be an integer >= 1)');
  if (!atLeast(flavor.disk, 0)) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter disk (must be an integer >= 0)');
  if (!atLeast(flavor.ephemeral, 0))
    throw invalid('MALFORMED_PARAMETER', 'Malformed parameter OS-FLV-EXT-DATA:ephemeral (must be an integer >= 0)');
  if (!atLeast(flavor.swap, 0)) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter swap (must be an integer >= 0)');
  if (!(flavor.rxtxFactor > 0)) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter rxtx_factor (must be > 0)');
};

const decide = (command: FlavorCatalogCommand, state: FlavorCatalogState): readonly FlavorCatalogEvent[] => {
  switch (command.type) {
    case 'AddFlavor': {
      const { flavor, now } = command.data;
      checkFlavor(flavor);
      if (state.flavors.has(flavor.id)) throw conflict('FLAVOR_EXISTS', `Flavor with ID ${flavor.id} already exists.`);
      for (const other of state.flavors.values()) {
        if (other.name === flavor.name) throw conflict('FLAVOR_EXISTS', `Flavor with name ${flavor.name} already exists.`);
      }
      return [{ type: 'FlavorCatalog.FlavorAdded', data: { flavor, addedAt: now } }];
    }
    case 'RemoveFlavor': {
      const flavor = state.flavors.get(command.data.flavorId);
      if (flavor === undefined) throw notFound('FLAVOR_NOT_FOUND', `Flavor ${command.data.flavorId} could not be found.`);
      return [{ type: 'FlavorCatalog.FlavorRemoved', data: { flavorId: flavor.id, name: flavor.name, removedAt: command.data.now } }];
    }
    default: {
      const _never: never = command;
      return _never;
    }
  }
};

const evolve = (state: FlavorCatalogState, event: FlavorCatalogEvent): FlavorCatalogState => {
  const flavors = new Map(state.flavors);
  switch (event.type) {
    case 'FlavorCatalog.FlavorAdded':
      flavors.set(event.data.flavor.id, event.data.flavor);
      return { flavors };
    case 'FlavorCatalog.FlavorRemoved':
      flavors.delete(event.data.flavorId);
      return { flavors };
    default: {
      const _never: never = event;
      return state;
    }
  }
};

export const flavorCatalogDecider: Decider<FlavorCatalogState, FlavorCatalogCommand, FlavorCatalogEvent> = {
  initialState: () => ({ flavors: new Map() }),
  decide,
  evolve,
};
