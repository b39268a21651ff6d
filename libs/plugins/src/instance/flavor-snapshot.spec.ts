import { describe, expect, it } from 'vitest';
import { flavorResourceProperties } from './flavor-snapshot.js';

const M1_MEDIUM = {
  id: '3',
  name: 'm1.medium',
  vcpus: 2,
  ram: 4096,
  disk: 40,
  ephemeral: 0,
  swap: 0,
  rxtxFactor: 1,
  isPublic: true,
  extraSpecs: { 'hw_rng:allowed': 'True' },
};

describe('flavorResourceProperties', () => {
  it('prints the Nova flavor dict exactly as upstream stores it (Python json.dumps)', () => {
    // verbatim from blazar/doc/source/cli/flavor-based-instance-reservation.rst
    expect(flavorResourceProperties(M1_MEDIUM)).toBe(
      '{"id": "3", "name": "m1.medium", "ram": 4096, "disk": 40, "swap": "", "OS-FLV-EXT-DATA:ephemeral": 0, "OS-FLV-DISABLED:disabled": false, "vcpus": 2, "os-flavor-access:is_public": true, "rxtx_factor": 1.0, "extra_specs": {"hw_rng:allowed": "True"}}',
    );
  });

  it('prints swap as a number, fractional rxtx factors as they are, and escapes non-ASCII as Python does', () => {
    const text = flavorResourceProperties({ ...M1_MEDIUM, name: 'größe', swap: 512, rxtxFactor: 1.5, isPublic: false, extraSpecs: {} });
    expect(text).toContain('"name": "gr\\u00f6\\u00dfe"');
    expect(text).toContain('"swap": 512');
    expect(text).toContain('"rxtx_factor": 1.5');
    expect(text).toContain('"os-flavor-access:is_public": false');
    expect(text).toContain('"extra_specs": {}');
    expect(JSON.parse(text)).toMatchObject({ name: 'größe', swap: 512 });
  });
});
