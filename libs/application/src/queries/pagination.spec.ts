import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Page, type PageRequest, type Sorting, compareValues, pageOf, pageQueryString, parsePageRequest } from './pagination.js';

interface Item {
  readonly id: string;
  readonly name: string | null;
  readonly size: number;
}

const SORTING: Sorting<Item> = { keys: ['name', 'id', 'size'], id: (item) => item.id, value: (item, key) => item[key as keyof Item] };

/** Every page from the first, following each page's `next`. */
const walk = (items: readonly Item[], first: PageRequest): Item[][] => {
  const pages: Item[][] = [];
  for (let request: PageRequest | null = first; request !== null;) {
    const page: Page<Item> = pageOf(items, request, SORTING);
    pages.push([...page.items]);
    request = page.next;
    if (pages.length > items.length + 1) throw new Error('paging does not end');
  }
  return pages;
};

describe('list paging', () => {
  it('given any list, walking its pages visits every item once, in the order of the key (ties by id), for either direction', () => {
    const item = fc.record({
      id: fc.uuid(),
      name: fc.option(fc.constantFrom('a', 'b', 'B', 'é', ''), { nil: null }),
      size: fc.integer({ min: -3, max: 3 }),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(item, { selector: (i) => i.id, maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom('name', 'id', 'size'),
        fc.constantFrom('asc' as const, 'desc' as const),
        (items, limit, sortKey, sortDir) => {
          const pages = walk(items, { limit, marker: null, sortKey, sortDir });
          const direction = sortDir === 'asc' ? 1 : -1;
          const expected = [...items].sort(
            (a, b) => direction * (compareValues(SORTING.value(a, sortKey), SORTING.value(b, sortKey)) || compareValues(a.id, b.id)),
          );
          expect(pages.flat()).toEqual(expected);
          expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
          expect(pages.at(-1)?.length ?? 0).toBeLessThanOrEqual(limit);
        },
      ),
    );
  });

  it('sorts nulls first, then numbers by value, then text by code point', () => {
    expect([10, 'b', null, 2, 'B', 'é'].sort(compareValues)).toEqual([null, 2, 10, 'B', 'b', 'é']);
  });

  it('asks for no paging when no parameter is given, and defaults the key and direction otherwise', () => {
    expect(parsePageRequest({}, SORTING)).toBeNull();
    expect(parsePageRequest({ limit: '5' }, SORTING)).toEqual({ limit: 5, marker: null, sortKey: 'name', sortDir: 'asc' });
    expect(parsePageRequest({ sort_dir: 'desc' }, SORTING)).toEqual({ limit: null, marker: null, sortKey: 'name', sortDir: 'desc' });
  });

  it.each([
    [{ limit: '0' }, 'limit must be an integer from 1 to 1000'],
    [{ limit: '1001' }, 'limit must be an integer from 1 to 1000'],
    [{ sort_key: 'owner' }, 'sort_key must be one of name, id, size'],
    [{ sort_dir: 'up' }, 'sort_dir must be asc or desc'],
  ])('refuses %j with a 400 naming the rule', (query, message) => {
    expect(() => parsePageRequest(query, SORTING)).toThrow(expect.objectContaining({ kind: 'invalid', message }));
  });

  it('refuses a marker no item has', () => {
    expect(() => pageOf([{ id: 'x', name: 'a', size: 1 }], { limit: 1, marker: 'y', sortKey: 'name', sortDir: 'asc' }, SORTING)).toThrow(
      expect.objectContaining({ kind: 'invalid', message: 'marker y could not be found' }),
    );
  });

  it('writes the next page as a query string', () => {
    expect(pageQueryString({ limit: 2, marker: 'a b', sortKey: 'name', sortDir: 'desc' })).toBe(
      'limit=2&marker=a+b&sort_key=name&sort_dir=desc',
    );
  });
});
