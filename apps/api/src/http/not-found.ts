import { type DomainError, notFound } from '../../../../libs/domain/src/index.js';

/**
 * Each resource's 404 in upstream's (or Nova's) words, one definition each for the routes, writers and
 * path checks; a host's and a floating IP's live with their use cases (libs/application).
 */
export const leaseNotFound = (leaseId: string): DomainError => notFound('LEASE_NOT_FOUND', `Object with {'lease_id': '${leaseId}'} not found`);

/** Nova's words; a private flavor is not found by those who may not see it. */
export const flavorNotFound = (flavorId: string): DomainError => notFound('FLAVOR_NOT_FOUND', `Flavor ${flavorId} could not be found.`);

export const propertyNotFound = (name: string): DomainError => notFound('PROPERTY_NOT_FOUND', `Resource property ${name} not found`);

/** What the exception filter answers for any route or file that does not exist. */
export const resourceNotFound = (): DomainError => notFound('NOT_FOUND', 'The resource could not be found.');
