import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureHeader, verifySignature } from './webhook-signature.js';

const secret = 'whsec-0123456789abcdef';
const body = '{"id":"e1","type":"lease.created"}';

describe('webhook signatures (t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "t.body")>)', () => {
  it('is the HMAC of the timestamp, a dot and the body, as a receiver computes it with node:crypto', () => {
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(signatureHeader(secret, 1_700_000_000, body)).toBe(`t=1700000000,v1=${expected}`);
  });

  it('verifies within five minutes of the timestamp and not after (a replay)', () => {
    const header = signatureHeader(secret, 1_700_000_000, body);
    expect(verifySignature(secret, header, body, 1_700_000_300)).toBe(true);
    expect(verifySignature(secret, header, body, 1_700_000_301)).toBe(false);
  });

  it('refuses another secret, a changed body, a changed timestamp and a malformed header', () => {
    const header = signatureHeader(secret, 1_700_000_000, body);
    expect(verifySignature('another-secret-0000', header, body, 1_700_000_000)).toBe(false);
    expect(verifySignature(secret, header, body.replace('e1', 'e2'), 1_700_000_000)).toBe(false);
    expect(verifySignature(secret, header.replace('t=1700000000', 't=1700000001'), body, 1_700_000_000)).toBe(false);
    expect(verifySignature(secret, 'v1=abc', body, 1_700_000_000)).toBe(false);
  });
});
