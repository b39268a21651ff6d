import type { FastifyRequest as Request } from 'fastify';
import { JsonText } from './json-text.js';
import {
  type Page,
  type PageQuery,
  type PageRequest,
  type Sorting,
  pageQueryString,
  parsePageRequest,
} from '#application/queries/pagination.js';

/** OpenStack's `<collection>_links`: a `next` link while more follows (absent on the last page and on unpaged lists). */
export interface PageLink {
  readonly rel: 'next';
  readonly href: string;
}

/** The page request of a list's query string; null when it asks for none. */
export const pageRequestOf = <Item>(query: PageQuery, sorting: Sorting<Item>): PageRequest | null => parsePageRequest(query, sorting);

/** The next page's URL: this request's own, with the page parameters of the next page (and its other parameters kept). */
const nextHref = (request: Request, next: PageRequest): string => {
  const url = new URL(request.originalUrl, `${request.protocol}://${request.headers.host ?? 'localhost'}`);
  for (const name of ['limit', 'marker', 'sort_key', 'sort_dir']) url.searchParams.delete(name);
  const kept = url.searchParams.toString();
  return `${url.origin}${url.pathname}?${kept === '' ? '' : `${kept}&`}${pageQueryString(next)}`;
};

/** `{ [collection]: items }`, plus `[collection]_links` when a next page exists. */
export const pageBody = <Key extends string, Item>(
  request: Request,
  collection: Key,
  page: Page<Item>,
): Record<Key, readonly Item[]> & Partial<Record<`${Key}_links`, PageLink[]>> => {
  const body: Record<string, unknown> = { [collection]: page.items };
  if (page.next !== null) body[`${collection}_links`] = [{ rel: 'next', href: nextHref(request, page.next) }];
  return body as Record<Key, readonly Item[]> & Partial<Record<`${Key}_links`, PageLink[]>>;
};

/** pageBody for items that are stored JSON documents already: assembled as text, not parsed and serialised again. */
export const documentPageBody = (request: Request, collection: string, page: Page<string>): JsonText => {
  const list = new JsonText(`{${JSON.stringify(collection)}:[${page.items.join(',')}]}`);
  return page.next === null ? list : list.withField(`${collection}_links`, [{ rel: 'next', href: nextHref(request, page.next) }]);
};
