import { FLAVOR_CATALOG_STREAM, type Flavor, flavorCatalogDecider } from '#domain/index.js';
import { type AppCommand, appendTo, eventMetadata } from '../command.js';
import { authorize } from '../caller.js';
import type { ApplicationContext } from '../application-context.js';
import { ACTIONS } from '../policy/policy-defaults.js';

/** A flavor as requested: without an id, one is made up (a UUID, as Nova does). */
export type NewFlavor = Omit<Flavor, 'id'> & { readonly id: string | null };

export type AddFlavor = AppCommand<'AddFlavor', { readonly flavor: NewFlavor }>;
export type RemoveFlavor = AppCommand<'RemoveFlavor', { readonly flavorId: string }>;

export interface FlavorAdded {
  readonly flavor: Flavor;
  readonly position: number;
}

/** Who may do what to the catalog: the use cases enforce it; a transport may ask first (upstream answers 403 before 400). */
export const FLAVOR_POLICY = { add: ACTIONS.flavorPost, remove: ACTIONS.flavorDelete } as const;

/** The standalone flavor catalog: one stream, so ids and names stay unique. */
export class FlavorUseCases {
  constructor(private readonly context: ApplicationContext) {}

  async add(command: AddFlavor): Promise<FlavorAdded> {
    authorize(command.metadata.actor, FLAVOR_POLICY.add);
    const { handler, index, newId } = this.context;
    const flavor: Flavor = { ...command.data.flavor, id: command.data.flavor.id ?? newId() };
    const { position } = await handler.handle(async () => {
      await index.catchUp();
      const catalog = index.flavorCatalog();
      const events = flavorCatalogDecider.decide({ type: 'AddFlavor', data: { flavor, now: command.metadata.now } }, catalog.state);
      return { appends: [appendTo(FLAVOR_CATALOG_STREAM, catalog.revision, events, eventMetadata(command.metadata), newId)], result: null };
    });
    return { flavor, position };
  }

  async remove(command: RemoveFlavor): Promise<{ readonly position: number }> {
    authorize(command.metadata.actor, FLAVOR_POLICY.remove);
    const { handler, index, newId } = this.context;
    const { flavorId } = command.data;
    return handler.handle(async () => {
      await index.catchUp();
      const catalog = index.flavorCatalog();
      const events = flavorCatalogDecider.decide({ type: 'RemoveFlavor', data: { flavorId, now: command.metadata.now } }, catalog.state);
      return { appends: [appendTo(FLAVOR_CATALOG_STREAM, catalog.revision, events, eventMetadata(command.metadata), newId)], result: null };
    });
  }
}
