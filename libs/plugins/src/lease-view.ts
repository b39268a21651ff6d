import type { LeaseEvent, ResourceType } from '#domain/index.js';
import { type LeaseView, type ReservationViewers, evolveLeaseViewWith } from '#read-model/index.js';
import { type AnyReservationType, RESERVATION_TYPES, reservationType } from './reservation-types.js';

const viewers: ReservationViewers = (type) => reservationType(type).view;

/** The lease view the system folds: the read model's, each reservation shown by its type's module. */
export const evolveLeaseView: (view: LeaseView | null, event: LeaseEvent) => LeaseView | null = evolveLeaseViewWith(viewers);

/** One view of the registry's with the types that show it, as GraphQL and OpenAPI declare it once. */
export interface SharedView {
  readonly view: AnyReservationType['view'];
  readonly resourceTypes: readonly ResourceType[];
}

const share = (views: readonly SharedView[], module: AnyReservationType): readonly SharedView[] => {
  const same = views.find((shared) => shared.view.name === module.view.name);
  if (same === undefined) return [...views, { view: module.view, resourceTypes: [module.resourceType] }];
  if (same.view !== module.view) throw new Error(`${module.resourceType} names its view ${module.view.name}, as another view is named`);
  return views.map((shared) =>
    shared === same ? { view: shared.view, resourceTypes: [...shared.resourceTypes, module.resourceType] } : shared,
  );
};

/** The views of `modules`, once each, in their order; two views of one name would be two schemas of one name. */
export const sharedViews = (modules: readonly AnyReservationType[]): readonly SharedView[] =>
  modules.reduce<readonly SharedView[]>(share, []);

/** Every view of the registered types, once each, in the registry's order. */
export const RESERVATION_VIEWS: readonly SharedView[] = sharedViews(RESERVATION_TYPES);
