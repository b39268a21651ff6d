import type { PastInstant, ReadQueries } from '#application/queries/read.queries.js';

/** Where a read answers from: null for the live read models, else the instant an `as_of` asked for and its log position. */
export type ReadPosition = PastInstant | null;

export const queriesAt = (queries: ReadQueries, at: ReadPosition): ReadQueries => (at === null ? queries : queries.asOf(at));
