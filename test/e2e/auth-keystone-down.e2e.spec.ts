/**
 * Auth mode `keystone` with Keystone out of reach: the API still starts (and says so in its log),
 * answers version discovery, and refuses API calls with 503 (keystonemiddleware's shape) rather than
 * letting anything through or blaming the caller's token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSystem, freePort, startSystem } from '../helpers/system.js';

const UNAVAILABLE = {
  error: { code: 503, title: 'Service Unavailable', message: 'The server is currently unavailable. Please try again at a later time.' },
};

let system: RunningSystem;
let keystoneUrl: string;

beforeAll(async () => {
  keystoneUrl = `http://127.0.0.1:${await freePort()}/v3`; // nothing listens there
  system = await startSystem({
    apps: ['api'],
    env: {
      LEASEHOLD_AUTH: 'keystone',
      LEASEHOLD_KEYSTONE_URL: keystoneUrl,
      LEASEHOLD_KEYSTONE_USERNAME: 'leasehold',
      LEASEHOLD_KEYSTONE_PASSWORD: 'not-printed-anywhere',
    },
  });
});

afterAll(async () => {
  await system?.stop();
});

describe('auth mode keystone, Keystone unreachable', () => {
  it('version discovery still answers', async () => {
    expect((await fetch(`${system.url}/`)).status).toBe(300);
  });

  it('a call with a token gets 503; without a token still 401 (no need to ask Keystone)', async () => {
    const withToken = await fetch(`${system.url}/v1/leases`, { headers: { 'X-Auth-Token': 'some-token' } });
    expect(withToken.status).toBe(503);
    expect(await withToken.json()).toEqual(UNAVAILABLE);
    const without = await fetch(`${system.url}/v1/leases`);
    expect(without.status).toBe(401);
    expect(without.headers.get('www-authenticate')).toBe(`Keystone uri="${keystoneUrl}"`);
  });

  it('the log says Keystone is unreachable, and never prints the service password', () => {
    expect(system.output()).toMatch(/"keystone":"unreachable"|is unreachable/);
    expect(system.output()).not.toContain('not-printed-anywhere');
  });
});
