import { invalid } from '#domain/index.js';
import type { LeasePageEntry } from '#read-model/index.js';

/** The most leases one page may hold, and a page's size when `first` is not given. */
export const MAX_PAGE = 500;
export const DEFAULT_PAGE = 50;

const malformedCursor = () => invalid('MALFORMED_PARAMETER', 'Malformed parameter after (not a cursor this API gave)');

/** Opaque to clients: the (start date, id) the next page starts after. */
export const cursorOf = (entry: LeasePageEntry): string =>
  Buffer.from(JSON.stringify([entry.startDate, entry.lease.id])).toString('base64url');

export const parseCursor = (cursor: string): { readonly startDate: string; readonly id: string } => {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw malformedCursor();
  }
  if (!Array.isArray(decoded) || decoded.length !== 2 || !decoded.every((part) => typeof part === 'string')) throw malformedCursor();
  const [startDate, id] = decoded as [string, string];
  return { startDate, id };
};

export const pageSize = (first: number | null | undefined): number => {
  const size = first ?? DEFAULT_PAGE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE)
    throw invalid('MALFORMED_PARAMETER', `Malformed parameter first (an integer from 1 to ${MAX_PAGE})`);
  return size;
};
