import { BlockList, isIP } from 'node:net';

/**
 * Which addresses the `public` target policy lets webhooks reach (docs/webhooks.md "Where webhooks
 * may go"): those of the IANA special-purpose registries are refused, IPv6 outside the global unicast
 * space 2000::/3 too, and an IPv6 address that reaches an IPv4 address (mapped, translated, tunnelled)
 * is judged as that IPv4 address.
 */

const REFUSED_V4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // this network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, the cloud's metadata service
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments (DS-Lite, NAT64 discovery, PCP and TURN anycast)
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the limited broadcast 255.255.255.255
];

/** Inside 2000::/3; outside it nothing is global unicast (::, ::1, 100::/64, 5f00::/16, fc00::/7, fe80::/10, fec0::/10, ff00::/8...). */
const REFUSED_GLOBAL_V6: readonly (readonly [string, number])[] = [
  ['2001::', 23], // IETF protocol assignments: benchmarking 2001:2::/48, ORCHID(v2) 2001:10::/28 and 2001:20::/28, anycast services
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
];

const blockList = (ranges: readonly (readonly [string, number])[], family: 'ipv4' | 'ipv6'): BlockList => {
  const list = new BlockList();
  for (const [address, prefix] of ranges) list.addSubnet(address, prefix, family);
  return list;
};

const refusedV4 = blockList(REFUSED_V4, 'ipv4');
const refusedGlobalV6 = blockList(REFUSED_GLOBAL_V6, 'ipv6');
const globalUnicast = blockList([['2000::', 3]], 'ipv6');

const hextets = (part: string): number[] => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));

/** The 16 bytes of an address isIP() calls IPv6 (a trailing dotted quad included). */
const ipv6Bytes = (address: string): readonly number[] => {
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const text =
    dotted === null
      ? address
      : `${dotted[1]}${((Number(dotted[2]) << 8) | Number(dotted[3])).toString(16)}:${((Number(dotted[4]) << 8) | Number(dotted[5])).toString(16)}`;
  const [left = '', right] = text.split('::');
  const head = hextets(left);
  const tail = right === undefined ? [] : hextets(right);
  const groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  return groups.flatMap((group) => [group >> 8, group & 0xff]);
};

const ipv4At = (bytes: readonly number[], places: readonly number[], mask = 0): string =>
  places.map((index) => (bytes[index] ?? 0) ^ mask).join('.');

const LAST_32 = [12, 13, 14, 15];
/** RFC 6052: where a NAT64 prefix of /48, /56, /64 or /96 puts the IPv4 address (bits 64-71 are left out). */
const RFC6052_PLACES = [[6, 7, 9, 10], [7, 9, 10, 11], [9, 10, 11, 12], LAST_32];

interface Embedding {
  readonly prefix: readonly number[];
  readonly ipv4: (bytes: readonly number[]) => readonly string[];
}

const EMBEDDINGS: readonly Embedding[] = [
  // IPv4-compatible ::a.b.c.d (deprecated)
  { prefix: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], ipv4: (bytes) => [ipv4At(bytes, LAST_32)] },
  // IPv4-mapped ::ffff:a.b.c.d
  { prefix: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], ipv4: (bytes) => [ipv4At(bytes, LAST_32)] },
  // IPv4-translated ::ffff:0:a.b.c.d (SIIT)
  { prefix: [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0], ipv4: (bytes) => [ipv4At(bytes, LAST_32)] },
  // NAT64 well-known prefix 64:ff9b::/96
  { prefix: [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], ipv4: (bytes) => [ipv4At(bytes, LAST_32)] },
  // NAT64 local-use 64:ff9b:1::/48: the operator's prefix length inside it is not known here, so every place RFC 6052 allows counts
  { prefix: [0, 0x64, 0xff, 0x9b, 0, 1], ipv4: (bytes) => RFC6052_PLACES.map((places) => ipv4At(bytes, places)) },
  // 6to4 2002:a.b.c.d::/48
  { prefix: [0x20, 0x02], ipv4: (bytes) => [ipv4At(bytes, [2, 3, 4, 5])] },
  // Teredo 2001::/32: the client is the last 32 bits inverted; its server (bits 32-63) is reached too
  { prefix: [0x20, 0x01, 0, 0], ipv4: (bytes) => [ipv4At(bytes, LAST_32, 0xff), ipv4At(bytes, [4, 5, 6, 7])] },
];

/** The IPv4 addresses an IPv6 address reaches (through mapping, translation or a tunnel); null when it embeds none. */
export const embeddedIpv4 = (address: string): readonly string[] | null => {
  const bytes = ipv6Bytes(address);
  // :: and ::1 are IPv6's own unspecified and loopback addresses, not IPv4-compatible ones
  if (bytes.slice(0, 15).every((byte) => byte === 0) && (bytes[15] ?? 0) <= 1) return null;
  const embedding = EMBEDDINGS.find(({ prefix }) => prefix.every((byte, index) => bytes[index] === byte));
  return embedding === undefined ? null : embedding.ipv4(bytes);
};

/** Whether the `public` policy lets a webhook reach this address (isIP() must say 4 or 6; a scoped IPv6 address is refused). */
export const publicAddress = (address: string): boolean => {
  if (isIP(address) === 4) return !refusedV4.check(address, 'ipv4');
  if (address.includes('%')) return false;
  const inside = embeddedIpv4(address);
  if (inside !== null) return inside.every(publicAddress);
  return globalUnicast.check(address, 'ipv6') && !refusedGlobalV6.check(address, 'ipv6');
};
