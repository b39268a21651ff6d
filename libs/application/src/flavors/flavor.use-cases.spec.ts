import { describe, it } from 'vitest';
import { FLAVOR_CATALOG_STREAM } from '#domain/index.js';
import { applicationSpecification, commandMetadata, testCaller } from '../testing/application.specification.js';
import { FlavorUseCases, type NewFlavor } from './flavor.use-cases.js';

const NOW = '2030-01-01T00:00:00.000Z';
const spec = applicationSpecification((context) => new FlavorUseCases(context));
const admin = commandMetadata(testCaller('admin'), NOW);
const member = commandMetadata(testCaller('member'), NOW);

const small: NewFlavor = {
  id: null,
  name: 'm1.small',
  vcpus: 1,
  ram: 2048,
  disk: 20,
  ephemeral: 0,
  swap: 0,
  rxtxFactor: 1,
  isPublic: true,
  extraSpecs: {},
};
const added = (flavor: object) => ({ streamId: FLAVOR_CATALOG_STREAM, type: 'FlavorCatalog.FlavorAdded', data: { flavor, addedAt: NOW } });

describe('flavor use cases', () => {
  it('an admin adds a flavor; without an id it gets a new one', async () => {
    await spec
      .given([])
      .when((flavors) => flavors.add({ type: 'AddFlavor', data: { flavor: small }, metadata: admin }))
      .then([added({ ...small, id: 'id-1' })]);
  });

  it('a member may not add one (upstream policy: admin only), and nothing is recorded', async () => {
    await spec
      .given([])
      .when((flavors) => flavors.add({ type: 'AddFlavor', data: { flavor: small }, metadata: member }))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED', kind: 'forbidden' });
  });

  it('a name already in the catalog is a conflict', async () => {
    await spec
      .given([added({ ...small, id: '1' })])
      .when((flavors) => flavors.add({ type: 'AddFlavor', data: { flavor: { ...small, id: '2' } }, metadata: admin }))
      .thenThrows({ kind: 'conflict' });
  });

  it('an admin removes a flavor; an unknown one is not found', async () => {
    await spec
      .given([added({ ...small, id: '1' })])
      .when((flavors) => flavors.remove({ type: 'RemoveFlavor', data: { flavorId: '1' }, metadata: admin }))
      .then([
        { streamId: FLAVOR_CATALOG_STREAM, type: 'FlavorCatalog.FlavorRemoved', data: { flavorId: '1', name: 'm1.small', removedAt: NOW } },
      ]);
    await spec
      .given([])
      .when((flavors) => flavors.remove({ type: 'RemoveFlavor', data: { flavorId: '9' }, metadata: admin }))
      .thenThrows({ kind: 'not_found' });
  });
});
