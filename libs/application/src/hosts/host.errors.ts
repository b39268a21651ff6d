import { type DomainError, conflict, notFound } from '#domain/index.js';

/** Upstream's 404 for a host id; the API's routes answer it too. */
export const hostNotFound = (hostId: string): DomainError => notFound('HOST_NOT_FOUND', `Object with {'host_id': '${hostId}'} not found`);

/** Upstream's HostHavingServers (409), named after the host as the request named it. */
export const hostHavingServers = (host: string, serverIds: readonly string[]): DomainError =>
  conflict('HOST_HAVING_SERVERS', `Servers [${serverIds.join(', ')}] found for host ${host}`);
