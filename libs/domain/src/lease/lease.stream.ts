export const LEASE_CATEGORY = 'lease';

export const leaseStream = (leaseId: string): string => `${LEASE_CATEGORY}-${leaseId}`;
