import type { FlavorCatalogEvent } from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { FlavorEntity, toFlavorView } from '#read-model/index.js';
import { type Projection, findRow } from '../projection.js';

/** lh_flavors: the Nova-shaped document per flavor of the standalone catalog. */
export const flavorsProjection: Projection = {
  name: 'flavors',
  canHandle: ['FlavorCatalog.FlavorAdded', 'FlavorCatalog.FlavorRemoved'],
  async apply(em, recorded: RecordedEvent): Promise<void> {
    const event = { type: recorded.type, data: recorded.data } as FlavorCatalogEvent;
    switch (event.type) {
      case 'FlavorCatalog.FlavorAdded': {
        const { flavor } = event.data;
        const columns = { name: flavor.name, isPublic: flavor.isPublic, doc: toFlavorView(flavor) };
        const row = await findRow(em, FlavorEntity, { id: flavor.id });
        if (row === null) em.create(FlavorEntity, { id: flavor.id, ...columns });
        else em.assign(row, columns);
        return;
      }
      case 'FlavorCatalog.FlavorRemoved': {
        const row = await findRow(em, FlavorEntity, { id: event.data.flavorId });
        if (row !== null) em.remove(row);
        return;
      }
      default: {
        const _never: never = event;
        return _never;
      }
    }
  },
};
