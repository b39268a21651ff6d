import { describe, expect, it } from 'vitest';
import { CloudConfigError, parseCloudConfig } from './cloud-config.js';

const openstack = {
  LEASEHOLD_CLOUD: 'openstack',
  LEASEHOLD_OPENSTACK_AUTH_URL: 'http://keystone:5000/v3',
  LEASEHOLD_OPENSTACK_USERNAME: 'blazar',
  LEASEHOLD_OPENSTACK_PASSWORD: 'secret',
};

const settings = (env: NodeJS.ProcessEnv) => {
  const config = parseCloudConfig(env);
  if (config.kind !== 'openstack') throw new Error('expected openstack');
  return config.openstack;
};

describe('parseCloudConfig', () => {
  it('is standalone by default', () => {
    expect(parseCloudConfig({})).toEqual({ kind: 'standalone' });
  });

  it('has one freepool named freepool by default', () => {
    expect(settings(openstack)).toMatchObject({ freepoolName: 'freepool', freepoolPerZone: false });
  });

  it('reads LEASEHOLD_FREEPOOL_NAME and LEASEHOLD_FREEPOOL_PER_ZONE', () => {
    expect(settings({ ...openstack, LEASEHOLD_FREEPOOL_NAME: 'spare', LEASEHOLD_FREEPOOL_PER_ZONE: 'true' })).toMatchObject({
      freepoolName: 'spare',
      freepoolPerZone: true,
    });
    expect(settings({ ...openstack, LEASEHOLD_FREEPOOL_PER_ZONE: 'FALSE' }).freepoolPerZone).toBe(false);
    expect(settings({ ...openstack, LEASEHOLD_FREEPOOL_PER_ZONE: ' ' }).freepoolPerZone).toBe(false);
  });

  it('refuses a LEASEHOLD_FREEPOOL_PER_ZONE that is neither true nor false', () => {
    expect(() => parseCloudConfig({ ...openstack, LEASEHOLD_FREEPOOL_PER_ZONE: 'yes' })).toThrow(
      new CloudConfigError("LEASEHOLD_FREEPOOL_PER_ZONE must be true or false, got 'yes'"),
    );
  });

  it('has preemptible servers off by default, and a grace period of 60 s when on', () => {
    expect(settings(openstack).preemptible).toBeNull();
    expect(settings({ ...openstack, LEASEHOLD_PREEMPTIBLE_GRACE_SECONDS: '5' }).preemptible).toBeNull();
    expect(settings({ ...openstack, LEASEHOLD_PREEMPTIBLE: 'true' }).preemptible).toEqual({ graceSeconds: 60 });
    expect(settings({ ...openstack, LEASEHOLD_PREEMPTIBLE: 'true', LEASEHOLD_PREEMPTIBLE_GRACE_SECONDS: '0' }).preemptible).toEqual({
      graceSeconds: 0,
    });
  });

  it('refuses a LEASEHOLD_PREEMPTIBLE_GRACE_SECONDS that is not a non-negative integer', () => {
    expect(() => parseCloudConfig({ ...openstack, LEASEHOLD_PREEMPTIBLE: 'true', LEASEHOLD_PREEMPTIBLE_GRACE_SECONDS: '-1' })).toThrow(
      new CloudConfigError("LEASEHOLD_PREEMPTIBLE_GRACE_SECONDS must be a non-negative integer, got '-1'"),
    );
    expect(() => parseCloudConfig({ ...openstack, LEASEHOLD_PREEMPTIBLE: 'on' })).toThrow(
      new CloudConfigError("LEASEHOLD_PREEMPTIBLE must be true or false, got 'on'"),
    );
  });

  it('ignores the OpenStack variables in standalone mode', () => {
    expect(parseCloudConfig({ LEASEHOLD_FREEPOOL_PER_ZONE: 'maybe' })).toEqual({ kind: 'standalone' });
  });
});
