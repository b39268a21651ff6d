import type { ReadQueries } from '#application/queries/read.queries.js';

/** Where a read answers from: null for the live read models, else the log position an `as_of` resolved to. */
export type ReadPosition = number | null;

export const queriesAt = (queries: ReadQueries, at: ReadPosition): ReadQueries => (at === null ? queries : queries.asOf(at));
