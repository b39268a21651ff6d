import type { RefusedLease } from '#application/audit/write-refused.events.js';

const NO_LEASE: RefusedLease = { id: null, name: null };

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

const member = (value: unknown, key: string): unknown =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;

/** A REST write on a lease names it in its route; a create has no id yet, only the name it asks for. */
export const restRefusedLease = (operation: string, params: Readonly<Record<string, unknown>>, body: unknown): RefusedLease => {
  if (operation === 'createLease') return { id: null, name: text(member(body, 'name')) };
  return { id: text(params['leaseId']), name: null };
};

/** The GraphQL lease mutations, as their REST routes. */
export const graphqlRefusedLease = (fieldName: string, args: Readonly<Record<string, unknown>>): RefusedLease => {
  switch (fieldName) {
    case 'createLease':
      return { id: null, name: text(member(args['input'], 'name')) };
    case 'updateLease':
    case 'deleteLease':
      return { id: text(args['id']), name: null };
    default:
      return NO_LEASE;
  }
};
