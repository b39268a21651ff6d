/** One word: a stream's category is what comes before its first '-', and `lease` is the leases'. */
export const LEASE_REQUEST_CATEGORY = 'leaserequest';

export const leaseRequestStream = (requestId: string): string => `${LEASE_REQUEST_CATEGORY}-${requestId}`;
