import { type DomainError, unavailable } from '#domain/index.js';

/** A cloud failure that is not the caller's fault (503): the caller may retry, nothing was done. */
export const cloudUnavailable = (service: string, why: string): DomainError =>
  unavailable('CLOUD_UNAVAILABLE', `${service} is unavailable, nothing was changed; try again later (${why})`);
