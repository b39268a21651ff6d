import type { EntitySchema } from '@mikro-orm/core';
import type { Version } from '#read-model/index.js';
import type { BatchRows } from './batch-rows.js';

/**
 * Keeps the version of a live row that the event at `position` is about to change or remove, valid
 * from the row's `since` up to that event, so that a GET as of any earlier position can still show
 * it. A row changed twice by one event has one version. `columns` becomes the version row (the
 * callers build it for this call alone): no copy of it per event.
 */
export const keepVersion = <V extends Version>(
  rows: BatchRows,
  history: EntitySchema<V>,
  since: number,
  position: number,
  columns: Omit<V, keyof Version>,
): void => {
  if (since >= position) return;
  const version = columns as V;
  version.validFrom = since;
  version.validTo = position;
  rows.added(history).add(version);
};
