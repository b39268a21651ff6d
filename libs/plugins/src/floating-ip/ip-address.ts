import { isIP } from 'node:net';

/**
 * The one spelling of an IPv4 or IPv6 address (IPv6 compressed and lower-case, as the URL parser
 * prints it), or null when the text is not an address. Registration and reservations compare
 * canonical forms, so "2001:DB8::0:1" and "2001:db8::1" are the same address.
 */
export const canonicalIpAddress = (text: string): string | null => {
  const trimmed = text.trim();
  switch (isIP(trimmed)) {
    case 4:
      return trimmed;
    case 6:
      return new URL(`http://[${trimmed}]/`).hostname.slice(1, -1);
    default:
      return null;
  }
};
