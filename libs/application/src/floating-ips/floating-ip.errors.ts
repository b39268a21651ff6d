import { type DomainError, notFound } from '#domain/index.js';

/** Upstream's 404 for a floating IP id; the API's routes answer it too. */
export const floatingIpNotFound = (floatingIpId: string): DomainError =>
  notFound('FLOATING_IP_NOT_FOUND', `Floating IP ${floatingIpId} not found.`);
