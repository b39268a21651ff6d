import { type DomainError, notFound } from '#domain/index.js';

/** Upstream's 404 for a host id; the API's routes answer it too. */
export const hostNotFound = (hostId: string): DomainError => notFound('HOST_NOT_FOUND', `Object with {'host_id': '${hostId}'} not found`);
