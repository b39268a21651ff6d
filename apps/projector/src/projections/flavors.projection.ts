import type { FlavorCatalogEvent } from '#domain/index.js';
import type { FoldableEvent } from '#event-store/event-store.port.js';
import { FlavorEntity, toFlavorView } from '#read-model/index.js';
import type { Projection } from '../projection.js';

/** lh_flavors: the Nova-shaped document per flavor of the standalone catalog (written whole: no reads). */
export const flavorsProjection: Projection = {
  name: 'flavors',
  canHandle: ['FlavorCatalog.FlavorAdded', 'FlavorCatalog.FlavorRemoved'],
  apply(rows, recorded: FoldableEvent): void {
    const event = { type: recorded.type, data: recorded.data } as FlavorCatalogEvent;
    const flavors = rows.table(FlavorEntity);
    switch (event.type) {
      case 'FlavorCatalog.FlavorAdded': {
        const { flavor } = event.data;
        flavors.put({ id: flavor.id, name: flavor.name, isPublic: flavor.isPublic, doc: toFlavorView(flavor) });
        return;
      }
      case 'FlavorCatalog.FlavorRemoved':
        flavors.remove(event.data.flavorId);
        return;
      default: {
        const _never: never = event;
        return _never;
      }
    }
  },
};
