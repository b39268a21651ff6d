import { describe, expect, it } from 'vitest';
import { canonicalIpAddress } from './ip-address.js';

describe('canonicalIpAddress', () => {
  it.each([
    ['172.24.4.10', '172.24.4.10'],
    [' 172.24.4.10 ', '172.24.4.10'],
    ['2001:DB8::0:1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['::1', '::1'],
  ])('%s -> %s', (text, canonical) => {
    expect(canonicalIpAddress(text)).toBe(canonical);
  });

  it.each(['', 'not-an-ip', '300.1.1.1', '01.2.3.4', '1.2.3', '2001:db8::1::2', '[::1]'])('%s is not an address', (text) => {
    expect(canonicalIpAddress(text)).toBeNull();
  });
});
