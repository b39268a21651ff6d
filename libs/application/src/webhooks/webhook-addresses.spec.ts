import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { embeddedIpv4 } from './webhook-addresses.js';
import { addressAllowed, parseTargetPolicy } from './webhook-targets.js';

/**
 * The address classifier under the default `public` policy and under an allow-list of loopback:
 * every IPv6 form that reaches an IPv4 address is judged as that address, whatever the rest of it
 * says, and the special-purpose ranges of the IANA registries are refused.
 */
const byDefault = parseTargetPolicy(undefined);
const loopbackOnly = parseTargetPolicy('127.0.0.1');

type Octets = readonly [number, number, number, number];

const dotted = (v4: Octets): string => v4.join('.');

/** The IPv6 text of 16 bytes, each group in hex (no `::` shortening: the classifier must read any spelling). */
const ipv6 = (bytes: readonly number[]): string => {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return groups.join(':');
};

/** 16 bytes: `prefix` first, `v4` at each of `places` (4 byte indexes each), `filler` elsewhere. */
const embed = (prefix: readonly number[], v4: Octets, places: readonly (readonly number[])[], filler: readonly number[] = []): string => {
  const bytes = Array.from({ length: 16 }, (_, i) => (i < prefix.length ? (prefix[i] ?? 0) : (filler[i] ?? 0)));
  for (const place of places) place.forEach((index, n) => (bytes[index] = v4[n] ?? 0));
  return ipv6(bytes);
};

const last4 = [12, 13, 14, 15];
/** RFC 6052's places of the IPv4 address for a prefix of /48, /56, /64, /96 (bits 64-71 are skipped). */
const RFC6052_PLACES = { 48: [6, 7, 9, 10], 56: [7, 9, 10, 11], 64: [9, 10, 11, 12], 96: [12, 13, 14, 15] } as const;

/**
 * Each form that embeds one IPv4 address in one place, with bytes around it left free (the filler). The
 * local-use NAT64 prefix has several places (its length is the operator's): its own property below.
 */
const FORMS: Record<string, (v4: Octets, filler: readonly number[]) => string> = {
  'IPv4-compatible ::a.b.c.d': (v4) => embed([], v4, [last4]),
  'IPv4-mapped ::ffff:a.b.c.d': (v4) => embed([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], v4, [last4]),
  'IPv4-translated ::ffff:0:a.b.c.d': (v4) => embed([0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0], v4, [last4]),
  'NAT64 well-known 64:ff9b::/96': (v4) => embed([0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], v4, [last4]),
  '6to4 2002::/16': (v4, filler) => embed([0x20, 0x02], v4, [[2, 3, 4, 5]], filler),
  'Teredo 2001::/32 (server and client the same)': (v4, filler) => {
    const inverted = v4.map((octet) => octet ^ 0xff) as unknown as Octets;
    return ipv6([0x20, 0x01, 0, 0, ...v4, filler[8] ?? 0, filler[9] ?? 0, filler[10] ?? 0, filler[11] ?? 0, ...inverted]);
  },
};

const octets = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)) as fc.Arbitrary<Octets>;
const bytes16 = fc.array(fc.nat(255), { minLength: 16, maxLength: 16 });

/** IPv4 addresses the default policy refuses, one of each special-purpose range. */
const REFUSED_V4: Octets[] = [
  [0, 0, 0, 0],
  [0, 1, 2, 3],
  [10, 1, 2, 3],
  [100, 64, 0, 1],
  [127, 0, 0, 1],
  [169, 254, 169, 254],
  [172, 16, 0, 1],
  [192, 0, 0, 9],
  [192, 0, 2, 1],
  [192, 88, 99, 1],
  [192, 168, 1, 1],
  [198, 18, 0, 1],
  [198, 51, 100, 1],
  [203, 0, 113, 1],
  [224, 0, 0, 1],
  [240, 0, 0, 1],
  [255, 255, 255, 255],
];
const PUBLIC_V4: Octets = [93, 184, 216, 34];

describe('an IPv6 address that embeds an IPv4 address is judged as that address', () => {
  for (const [form, spell] of Object.entries(FORMS)) {
    it(`${form}: as its IPv4 address, under the default policy and an allow-list of 127.0.0.1`, () => {
      fc.assert(
        fc.property(octets, bytes16, (v4, filler) => {
          const address = spell(v4, filler);
          expect(addressAllowed(byDefault, address), address).toBe(addressAllowed(byDefault, dotted(v4)));
          expect(addressAllowed(loopbackOnly, address), address).toBe(addressAllowed(loopbackOnly, dotted(v4)));
        }),
        { numRuns: 2_000 },
      );
    });

    it.each(REFUSED_V4.map(dotted))(`${form}: refused around %s`, (v4) => {
      const address = spell(v4.split('.').map(Number) as unknown as Octets, []);
      expect(addressAllowed(byDefault, address), address).toBe(false);
    });
  }

  it.each([
    ['::127.0.0.1', false],
    ['::7f00:1', false],
    ['::a9fe:a9fe', false],
    ['[::ffff:0:7f00:1]', false],
    ['2002:7f00:1::1', false],
    ['2002:a9fe:a9fe::', false],
    ['64:ff9b::7f00:1', false],
    ['64:ff9b::a9fe:a9fe', false],
    ['64:ff9b:1::7f00:1', false],
    ['64:ff9b:1:7f00:0:100::', false],
    ['64:ff9b:1:5d5d:5d5d:5d5d:5d5d:5d5d', true],
    ['2001:0:5db8:d822::a247:27dd', true],
    ['2001:0:5db8:d822::80ff:fffe', false],
    ['2001:0:7f00:1::a247:27dd', false],
    ['::ffff:5db8:d822', true],
    ['2002:5db8:d822::1', true],
    ['64:ff9b::5db8:d822', true],
  ])('%s -> %s', (raw, allowed) => {
    expect(addressAllowed(byDefault, raw.replace(/^\[(.*)\]$/, '$1'))).toBe(allowed);
  });

  it('a local-use NAT64 address is refused if any place RFC 6052 may put the IPv4 address in holds a refused one', () => {
    fc.assert(
      fc.property(fc.constantFrom(...REFUSED_V4), fc.constantFrom(48, 56, 64, 96), bytes16, (v4, length, filler) => {
        const address = embed([0, 0x64, 0xff, 0x9b, 0, 1], v4, [RFC6052_PLACES[length]], filler);
        expect(addressAllowed(byDefault, address), address).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });

  it('a Teredo address is refused if its client (the last 32 bits inverted) or its server is refused', () => {
    const teredo = (server: Octets, client: Octets): string =>
      ipv6([0x20, 0x01, 0, 0, ...server, 0, 0, 0, 0, ...client.map((o) => o ^ 0xff)]);
    for (const refused of REFUSED_V4) {
      expect(addressAllowed(byDefault, teredo(PUBLIC_V4, refused))).toBe(false);
      expect(addressAllowed(byDefault, teredo(refused, PUBLIC_V4))).toBe(false);
    }
    expect(addressAllowed(byDefault, teredo(PUBLIC_V4, PUBLIC_V4))).toBe(true);
  });
});

describe('the special-purpose ranges are refused under the default policy', () => {
  it.each([
    ['192.0.0.170', 'IETF protocol assignments 192.0.0/24 (NAT64 discovery)'],
    ['192.88.99.1', '6to4 relay anycast (deprecated)'],
    ['198.19.255.255', 'benchmarking 198.18/15'],
    ['255.255.255.255', 'limited broadcast'],
    ['100::1', 'discard-only 100::/64'],
    ['100:0:0:1::1', 'dummy prefix 100:0:0:1::/64'],
    ['2001:2::1', 'benchmarking 2001:2::/48'],
    ['2001:10::1', 'ORCHID 2001:10::/28'],
    ['2001:20::1', 'ORCHIDv2 2001:20::/28'],
    ['2001:1::1', 'IETF protocol assignments 2001::/23 (PCP anycast)'],
    ['2001:db8::1', 'documentation 2001:db8::/32'],
    ['3fff::1', 'documentation 3fff::/20'],
    ['5f00::1', 'SRv6 SIDs 5f00::/16'],
    ['fec0::1', 'site-local fec0::/10'],
    ['fd00::1', 'unique-local fc00::/7'],
    ['fe80::1', 'link-local fe80::/10'],
    ['ff02::1', 'multicast ff00::/8'],
    ['4000::1', 'outside the global unicast space 2000::/3'],
    ['fe80::1%eth0', 'a scoped address (an interface of this host)'],
  ])('%s (%s)', (address) => {
    expect(addressAllowed(byDefault, address)).toBe(false);
  });

  it('global unicast addresses outside those ranges pass', () => {
    for (const address of ['2606:2800:220:1::1', '2a00:1450:4001:81b::200e', '2620:4f:8000::1', '8.8.8.8', '1.1.1.1'])
      expect(addressAllowed(byDefault, address), address).toBe(true);
  });
});

describe('embeddedIpv4: the IPv4 addresses an IPv6 address reaches', () => {
  it.each([
    ['::7f00:1', ['127.0.0.1']],
    ['::ffff:10.0.0.1', ['10.0.0.1']],
    ['::ffff:0:a9fe:a9fe', ['169.254.169.254']],
    ['64:ff9b::c0a8:101', ['192.168.1.1']],
    ['2002:7f00:1::1', ['127.0.0.1']],
    ['2001:0:5db8:d822::80ff:fffe', ['127.0.0.1', '93.184.216.34']],
    ['64:ff9b:1::7f00:1', ['0.0.0.0', '0.0.0.0', '0.0.0.127', '127.0.0.1']],
    ['::', null],
    ['::1', null],
    ['2606:2800:220:1::1', null],
  ])('%s -> %j', (address, expected) => {
    expect(embeddedIpv4(address)).toEqual(expected);
  });
});
