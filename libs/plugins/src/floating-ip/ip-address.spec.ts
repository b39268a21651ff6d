import { describe, expect, it } from 'vitest';
import { canonicalIpAddress } from './ip-address.js';

describe('canonicalIpAddress', () => {
  it.each([
    ['172.24.4.10', '172.24.4.10'],
    ['2001:DB8::0:1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['::1', '::1'],
  ])('%s -> %s', (text, canonical) => {
    expect(canonicalIpAddress(text)).toBe(canonical);
  });

  it.each(['', ' 172.24.4.10 ', 'fe80::1%eth0', 'not-an-ip', '300.1.1.1', '01.2.3.4', '1.2.3', '2001:db8::1::2', '[::1]'])(
    '%s is not an address',
    (text) => {
      expect(canonicalIpAddress(text)).toBeNull();
    },
  );
});

describe('canonicalIpAddress: the spellings registration meets', () => {
  it.each([
    ['172.24.4.101', '172.24.4.101'],
    ['0.0.0.0', '0.0.0.0'],
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['1:0:0:0:1:0:0:0', '1::1:0:0:0'],
    ['2001:db8::0:1', '2001:db8::1'],
    ['::', '::'],
    ['::1', '::1'],
    ['::ffff:1.2.3.4', '::ffff:102:304'],
    ['2001:db8:1:1:1:1:1:1', '2001:db8:1:1:1:1:1:1'],
  ])('%s -> %s', (text, canonical) => {
    expect(canonicalIpAddress(text)).toBe(canonical);
  });

  it.each([
    '',
    ' 1.2.3.4',
    '1.2.3.4 ',
    '01.2.3.4',
    '1.2.3',
    '256.1.1.1',
    '1.2.3.4/32',
    'fe80::1%eth0',
    '2001:db8::1::2',
    ':::',
    'host.example',
    '12345::',
  ])('%j is not an address', (text) => {
    expect(canonicalIpAddress(text)).toBeNull();
  });
});
