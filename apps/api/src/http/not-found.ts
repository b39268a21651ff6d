import { type DomainError, notFound } from '#domain/index.js';

/** Each resource's 404 is defined once, with the queries (libs/application); the routes and path checks use the same. */
export { flavorNotFound, leaseNotFound, propertyNotFound } from '#application/queries/read.queries.js';

/** What the exception filter answers for any route or file that does not exist. */
export const resourceNotFound = (): DomainError => notFound('NOT_FOUND', 'The resource could not be found.');
