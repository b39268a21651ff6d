import { isIP } from 'node:net';

/**
 * The one spelling of an IP address that registration and reservations compare: IPv4 in dotted
 * decimal as given (node already refuses leading zeros), IPv6 in RFC 5952's form (lower case, no
 * leading zeros, the first longest run of zero groups compressed; an embedded IPv4 part in hex, as
 * Python's `ipaddress` prints it), so "2001:DB8::0:1" and "2001:db8::1" are the same address. Null for
 * anything else, zone ids included: a floating IP has none.
 */
export const canonicalIpAddress = (text: string): string | null => {
  switch (isIP(text)) {
    case 4:
      return text;
    case 6:
      if (text.includes('%')) return null;
      // the WHATWG URL parser serialises IPv6 hosts exactly so
      return new URL(`http://[${text}]/`).hostname.slice(1, -1);
    default:
      return null;
  }
};
