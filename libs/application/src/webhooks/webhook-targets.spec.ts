import { describe, expect, it } from 'vitest';
import { addressAllowed, checkWebhookTarget, parseTargetPolicy, parseWebhookUrl } from './webhook-targets.js';

describe('webhook URLs: http or https, no credentials, no fragment', () => {
  it.each([
    ['https://hooks.example.com/leasehold', true],
    ['http://hooks.example.com:8080/a?b=c', true],
    ['ftp://hooks.example.com/', false],
    ['file:///etc/passwd', false],
    ['javascript:alert(1)', false],
    ['https://user:pass@hooks.example.com/', false],
    ['https://user@hooks.example.com/', false],
    ['https://hooks.example.com/#frag', false],
    ['not a url', false],
    [`https://hooks.example.com/${'a'.repeat(2100)}`, false],
  ])('%s -> %s', (url, ok) => {
    if (ok) expect(parseWebhookUrl(url).protocol).toMatch(/^https?:$/);
    else expect(() => parseWebhookUrl(url)).toThrow(/Malformed parameter url/);
  });
});

describe('webhook targets: the default refuses the operator network, the allow-list replaces it', () => {
  const byDefault = parseTargetPolicy(undefined);
  it.each([
    ['93.184.216.34', true],
    ['2606:2800:220:1::1', true],
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.20.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['::', false],
    ['fd00::1', false],
    ['fe80::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:93.184.216.34', true],
    ['224.0.0.1', false],
  ])('default policy: %s -> %s', (address, allowed) => {
    expect(addressAllowed(byDefault, address)).toBe(allowed);
  });

  it('an allow-list of addresses and CIDRs allows those and nothing public unless it says public', () => {
    const local = parseTargetPolicy('127.0.0.1, 10.1.0.0/16');
    expect(addressAllowed(local, '127.0.0.1')).toBe(true);
    expect(addressAllowed(local, '127.0.0.2')).toBe(false);
    expect(addressAllowed(local, '10.1.255.1')).toBe(true);
    expect(addressAllowed(local, '93.184.216.34')).toBe(false);
    expect(addressAllowed(parseTargetPolicy('public,127.0.0.1'), '93.184.216.34')).toBe(true);
  });

  it('refuses an entry that is none of public, a host name, an address or a CIDR', () => {
    expect(() => parseTargetPolicy('10.0.0.0/33')).toThrow(/LEASEHOLD_WEBHOOK_ALLOWED_TARGETS/);
    expect(() => parseTargetPolicy('http://x')).toThrow(/LEASEHOLD_WEBHOOK_ALLOWED_TARGETS/);
  });

  it('at registration, every address a name resolves to must be allowed; a listed name passes as it is', async () => {
    const resolve = (name: string) => Promise.resolve(name === 'rebind.example.com' ? ['93.184.216.34', '127.0.0.1'] : ['93.184.216.34']);
    await expect(checkWebhookTarget(byDefault, new URL('https://ok.example.com/'), resolve)).resolves.toBeUndefined();
    await expect(checkWebhookTarget(byDefault, new URL('https://rebind.example.com/'), resolve)).rejects.toThrow(
      /not an allowed webhook target/,
    );
    await expect(checkWebhookTarget(byDefault, new URL('http://[::1]:8080/'), resolve)).rejects.toThrow(/not an allowed webhook target/);
    await expect(checkWebhookTarget(byDefault, new URL('http://169.254.169.254/latest/meta-data'), resolve)).rejects.toThrow(
      /not an allowed/,
    );
    const listed = parseTargetPolicy('*.internal.example');
    await expect(
      checkWebhookTarget(listed, new URL('https://hooks.internal.example/'), () => Promise.resolve(['10.0.0.1'])),
    ).resolves.toBeUndefined();
    await expect(
      checkWebhookTarget(byDefault, new URL('https://nowhere.invalid/'), () => Promise.reject(new Error('ENOTFOUND'))),
    ).rejects.toThrow(/does not resolve/);
  });
});
