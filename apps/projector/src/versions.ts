import type { EntityManager, EntitySchema, RequiredEntityData } from '@mikro-orm/core';
import type { Version } from '#read-model/index.js';

/**
 * Keeps the version of a live row that the event at `position` is about to change or remove, valid
 * from the row's `since` up to that event, so that a GET as of any earlier position can still show
 * it. A row changed twice by one event has one version.
 */
export const keepVersion = <V extends Version>(
  em: EntityManager,
  history: EntitySchema<V>,
  since: number,
  position: number,
  columns: Omit<V, keyof Version>,
): void => {
  if (since >= position) return;
  em.create(history, { ...columns, validFrom: since, validTo: position } as RequiredEntityData<V>);
};
