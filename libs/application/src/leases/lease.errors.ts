import { type DomainError, notFound } from '#domain/index.js';

/** Upstream's 404 for a lease id; the API's routes and the CLI's history answer it too. */
export const leaseNotFound = (leaseId: string): DomainError =>
  notFound('LEASE_NOT_FOUND', `Object with {'lease_id': '${leaseId}'} not found`);
