export const HOST_CATEGORY = 'host';

export const hostStream = (hostId: string): string => `${HOST_CATEGORY}-${hostId}`;
