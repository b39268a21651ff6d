import { type DomainError, conflict } from '../shared/errors.js';

/** Upstream's HostHavingServers (409), named after the host as the request named it. */
export const hostHavingServers = (host: string, serverIds: readonly string[]): DomainError =>
  conflict('HOST_HAVING_SERVERS', `Servers [${serverIds.join(', ')}] found for host ${host}`);
