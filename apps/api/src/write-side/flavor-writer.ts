import { randomUUID } from 'node:crypto';
import { FLAVOR_CATALOG_STREAM, type Flavor, flavorCatalogDecider } from '../../../../libs/domain/src/index.js';
import type { EventStore } from '../../../../libs/event-store/src/event-store.port.js';
import type { RequestContext } from '../http/request-context.js';
import { AsyncMutex } from './async-mutex.js';
import { envelope, requestMetadata } from './event-envelope.js';
import { retryOnConflict } from './retry.js';
import type { WriteIndex } from './write-index.js';

/** A flavor as requested: without an id, one is made up (a UUID, as Nova does). */
export type NewFlavor = Omit<Flavor, 'id'> & { readonly id: string | null };

export interface FlavorWriteResult {
  readonly flavor: Flavor;
  readonly position: number;
}

/** The standalone flavor catalog: one stream, so ids and names stay unique. */
export class FlavorWriter {
  private readonly lock = new AsyncMutex();

  constructor(
    private readonly store: EventStore,
    private readonly index: WriteIndex,
    private readonly clock: () => Date,
    private readonly newId: () => string = randomUUID,
  ) {}

  add(request: NewFlavor, context: RequestContext): Promise<FlavorWriteResult> {
    const metadata = requestMetadata(context);
    const flavor: Flavor = { ...request, id: request.id ?? this.newId() };
    return this.lock.run(() =>
      retryOnConflict(async () => {
        await this.index.catchUp();
        const catalog = this.index.flavorCatalog();
        const events = flavorCatalogDecider.decide({ type: 'AddFlavor', data: { flavor, now: this.clock().toISOString() } }, catalog.state);
        const result = await this.store.appendToStream(FLAVOR_CATALOG_STREAM, catalog.revision, envelope(events, metadata));
        return { flavor, position: result.position };
      }),
    );
  }

  remove(flavorId: string, context: RequestContext): Promise<number> {
    const metadata = requestMetadata(context);
    return this.lock.run(() =>
      retryOnConflict(async () => {
        await this.index.catchUp();
        const catalog = this.index.flavorCatalog();
        const events = flavorCatalogDecider.decide({ type: 'RemoveFlavor', data: { flavorId, now: this.clock().toISOString() } }, catalog.state);
        const result = await this.store.appendToStream(FLAVOR_CATALOG_STREAM, catalog.revision, envelope(events, metadata));
        return result.position;
      }),
    );
  }
}
