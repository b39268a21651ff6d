import { type DomainError, invalid } from '#domain/index.js';

/**
 * OpenStack's list paging (`limit`, `marker`, `sort_key`, `sort_dir`), one rule for every list. A
 * list asked without any of them answers complete and in its usual order, as Blazar clients expect.
 */
export interface PageRequest {
  /** Items per page; null: all that follow the marker. */
  readonly limit: number | null;
  /** The id of the last item of the previous page. */
  readonly marker: string | null;
  readonly sortKey: string;
  readonly sortDir: 'asc' | 'desc';
}

export interface Page<Item> {
  readonly items: readonly Item[];
  /** The request for the page after this one; null on the last page. */
  readonly next: PageRequest | null;
}

/** The raw query values a transport passes (undefined: not given). */
export interface PageQuery {
  readonly limit?: string | undefined;
  readonly marker?: string | undefined;
  readonly sort_key?: string | undefined;
  readonly sort_dir?: string | undefined;
}

export const MAX_PAGE_SIZE = 1000;

/** A list's sortable fields (the first is the default key) and how to read one from an item. */
export interface Sorting<Item> {
  readonly keys: readonly string[];
  readonly id: (item: Item) => string;
  readonly value: (item: Item, key: string) => unknown;
}

const badRequest = (message: string): DomainError => invalid('INVALID_PAGE_REQUEST', message);

export const markerNotFound = (marker: string): DomainError => badRequest(`marker ${marker} could not be found`);

/** null when the query asks for no paging at all (the list is answered as it always was). */
export const parsePageRequest = <Item>(query: PageQuery, sorting: Sorting<Item>): PageRequest | null => {
  if (query.limit === undefined && query.marker === undefined && query.sort_key === undefined && query.sort_dir === undefined) return null;
  const limit = query.limit === undefined ? null : Number(query.limit);
  if (limit !== null && (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE))
    throw badRequest(`limit must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  const sortKey = query.sort_key ?? sorting.keys[0] ?? '';
  if (!sorting.keys.includes(sortKey)) throw badRequest(`sort_key must be one of ${sorting.keys.join(', ')}`);
  const sortDir = query.sort_dir ?? 'asc';
  if (sortDir !== 'asc' && sortDir !== 'desc') throw badRequest('sort_dir must be asc or desc');
  return { limit, marker: query.marker ?? null, sortKey, sortDir };
};

const rank = (value: unknown): number =>
  value === null || value === undefined ? 0 : typeof value === 'number' || typeof value === 'boolean' ? 1 : 2;

/** Nulls first, then numbers, then text by code point (the same order on SQLite, PostgreSQL and here). */
export const compareValues = (a: unknown, b: unknown): number => {
  const byRank = rank(a) - rank(b);
  if (byRank !== 0) return byRank;
  if (rank(a) === 0) return 0;
  if (rank(a) === 1) return Number(a) - Number(b);
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
};

/** The page of `items` the request names: sorted by its key, ties by id, after the marker. */
export const pageOf = <Item>(items: readonly Item[], request: PageRequest, sorting: Sorting<Item>): Page<Item> => {
  const direction = request.sortDir === 'asc' ? 1 : -1;
  const compare = (a: Item, b: Item): number =>
    direction *
    (compareValues(sorting.value(a, request.sortKey), sorting.value(b, request.sortKey)) || compareValues(sorting.id(a), sorting.id(b)));
  const sorted = [...items].sort(compare);
  let from = 0;
  if (request.marker !== null) {
    const at = sorted.findIndex((item) => sorting.id(item) === request.marker);
    if (at === -1) throw markerNotFound(request.marker);
    from = at + 1;
  }
  const end = request.limit === null ? sorted.length : from + request.limit;
  const page = sorted.slice(from, end);
  const last = page.at(-1);
  return { items: page, next: end < sorted.length && last !== undefined ? { ...request, marker: sorting.id(last) } : null };
};

/** The query string of a page request, for a `next` link. */
export const pageQueryString = (request: PageRequest): string => {
  const parameters = new URLSearchParams();
  if (request.limit !== null) parameters.set('limit', String(request.limit));
  if (request.marker !== null) parameters.set('marker', request.marker);
  parameters.set('sort_key', request.sortKey);
  parameters.set('sort_dir', request.sortDir);
  return parameters.toString();
};
