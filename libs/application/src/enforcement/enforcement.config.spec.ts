import { describe, expect, it } from 'vitest';
import { enforcementConfigFromEnv } from './enforcement.config.js';

const EXTERNAL = { LEASEHOLD_ENFORCEMENT_FILTERS: 'external_service', LEASEHOLD_ENFORCEMENT_EXTERNAL_URL: 'http://127.0.0.1:61000/v1' };

describe('enforcement configuration', () => {
  it('enables no filter when unset, as upstream, with upstream-default options', () => {
    expect(enforcementConfigFromEnv({})).toMatchObject({
      filters: [],
      external: null,
      stacking: null,
      maxLeaseDuration: { maxSeconds: 86_400, extensionWindowHours: 0 },
    });
  });

  it('keeps the configured order and reads the filters options', () => {
    const config = enforcementConfigFromEnv({
      ...EXTERNAL,
      LEASEHOLD_ENFORCEMENT_FILTERS: ' external_service , max_lease_duration ',
      LEASEHOLD_MAX_LEASE_DURATION_SECONDS: '3600',
      LEASEHOLD_MAX_LEASE_DURATION_EXEMPT_PROJECTS: 'p1, p2',
      LEASEHOLD_LEASE_EXTENSION_WINDOW_HOURS: '6',
      LEASEHOLD_ENFORCEMENT_EXTERNAL_TOKEN: 'secret',
      LEASEHOLD_ENFORCEMENT_EXTERNAL_ON_ERROR: 'allow',
    });
    expect(config.filters).toEqual(['external_service', 'max_lease_duration']);
    expect(config.maxLeaseDuration).toEqual({ maxSeconds: 3600, exemptProjectIds: new Set(['p1', 'p2']), extensionWindowHours: 6 });
    expect(config.external).toEqual({ baseUrl: 'http://127.0.0.1:61000/v1/', token: 'secret', timeoutMs: 5000, onError: 'allow' });
  });

  it('reads the stacking limit, its scope (resource_properties by default, or a named host property) and the exempt projects', () => {
    const stacking = { LEASEHOLD_ENFORCEMENT_FILTERS: 'lease_stacking', LEASEHOLD_LEASE_STACKING_MAX: '2' };
    expect(enforcementConfigFromEnv(stacking).stacking).toEqual({
      max: 2,
      scope: { kind: 'resource_properties' },
      exemptProjectIds: new Set(),
    });
    const byNodeType = enforcementConfigFromEnv({
      ...stacking,
      LEASEHOLD_LEASE_STACKING_SCOPE: 'property:node_type',
      LEASEHOLD_LEASE_STACKING_EXEMPT_PROJECTS: 'ops',
    });
    expect(byNodeType.stacking).toEqual({ max: 2, scope: { kind: 'property', name: 'node_type' }, exemptProjectIds: new Set(['ops']) });
    expect(byNodeType.filters).toEqual(['lease_stacking']);
  });

  it.each([
    [
      { LEASEHOLD_ENFORCEMENT_FILTERS: 'lease_stacking' },
      'LEASEHOLD_ENFORCEMENT_FILTERS has lease_stacking: LEASEHOLD_LEASE_STACKING_MAX must be a positive integer',
    ],
    [
      { LEASEHOLD_ENFORCEMENT_FILTERS: 'lease_stacking', LEASEHOLD_LEASE_STACKING_MAX: '2', LEASEHOLD_LEASE_STACKING_SCOPE: 'node_type' },
      'LEASEHOLD_LEASE_STACKING_SCOPE must be resource_properties or property:<host property>, got node_type',
    ],
    [
      { LEASEHOLD_ENFORCEMENT_FILTERS: 'max_lease_duration,quota' },
      "LEASEHOLD_ENFORCEMENT_FILTERS: unknown filter 'quota' (known: max_lease_duration, external_service, lease_stacking)",
    ],
    [{ LEASEHOLD_ENFORCEMENT_FILTERS: 'external_service' }, 'LEASEHOLD_ENFORCEMENT_EXTERNAL_URL must be set'],
    [
      { ...EXTERNAL, LEASEHOLD_ENFORCEMENT_EXTERNAL_URL: 'ftp://x' },
      'LEASEHOLD_ENFORCEMENT_EXTERNAL_URL must be an http(s) URL, got ftp://x',
    ],
    [
      { ...EXTERNAL, LEASEHOLD_ENFORCEMENT_EXTERNAL_ON_ERROR: 'maybe' },
      'LEASEHOLD_ENFORCEMENT_EXTERNAL_ON_ERROR must be deny or allow, got maybe',
    ],
    [
      { ...EXTERNAL, LEASEHOLD_ENFORCEMENT_EXTERNAL_TIMEOUT_MS: '0' },
      'LEASEHOLD_ENFORCEMENT_EXTERNAL_TIMEOUT_MS must be a positive integer',
    ],
    [{ LEASEHOLD_MAX_LEASE_DURATION_SECONDS: '-1' }, 'LEASEHOLD_MAX_LEASE_DURATION_SECONDS must be a non-negative integer'],
  ])('refuses %j with a message naming the setting', (env, message) => {
    expect(() => enforcementConfigFromEnv(env)).toThrow(message);
  });
});
