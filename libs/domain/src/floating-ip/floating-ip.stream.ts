export const floatingIpStream = (floatingIpId: string): string => `floatingip-${floatingIpId}`;
