import type { EndpointInterface, KeystoneCredentials } from './openstack/openstack.session.js';

/**
 * Which cloud Leasehold acts on, read once from the environment by the API and the reactor alike:
 * `standalone` (the default: a simulated cloud in the data directory, nothing to install) or
 * `openstack` (Nova, Placement and Neutron through Keystone's catalog, with Leasehold's service user).
 */
export type CloudConfig = { readonly kind: 'standalone' } | { readonly kind: 'openstack'; readonly openstack: OpenStackSettings };

export interface OpenStackSettings {
  readonly credentials: KeystoneCredentials;
  readonly interface: EndpointInterface;
  /** Upstream's [nova]aggregate_freepool_name. */
  readonly freepoolName: string;
  /** One freepool aggregate per availability zone, `<freepoolName>-<zone>`, instead of one for the cloud. */
  readonly freepoolPerZone: boolean;
  /** oslo.messaging transport URL of Nova's notification bus (amqp://user:pass@host:port/vhost), or null: notifications off. */
  readonly notificationsUrl: string | null;
  /** Seconds between polls of Nova's compute services (the fallback monitor); 0 turns polling off. */
  readonly pollingIntervalSeconds: number;
  /** LEASEHOLD_PREEMPTIBLE=true: preemptible servers may use free freepool hosts; null: off. */
  readonly preemptible: PreemptibleSettings | null;
}

export interface PreemptibleSettings {
  /** Between the soft stop of a preemptible server on a host a lease takes and its deletion. */
  readonly graceSeconds: number;
}

export class CloudConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CloudConfigError';
  }
}

export const CLOUD_KINDS = ['standalone', 'openstack'] as const;

const optional = (value: string | undefined): string | null => (value === undefined || value.trim() === '' ? null : value.trim());

const required = (env: NodeJS.ProcessEnv, name: string): string => {
  const value = optional(env[name]);
  if (value === null) throw new CloudConfigError(`${name} is required when LEASEHOLD_CLOUD=openstack`);
  return value;
};

const flag = (value: string | undefined, fallback: boolean, name: string): boolean => {
  const text = optional(value)?.toLowerCase() ?? null;
  if (text === null) return fallback;
  if (text === 'true' || text === 'false') return text === 'true';
  throw new CloudConfigError(`${name} must be true or false, got '${value ?? ''}'`);
};

const INTERFACES: readonly EndpointInterface[] = ['public', 'internal', 'admin'];

const seconds = (value: string | undefined, fallback: number, name: string): number => {
  const text = optional(value);
  if (text === null) return fallback;
  const parsed = Number(text);
  if (!Number.isInteger(parsed) || parsed < 0) throw new CloudConfigError(`${name} must be a non-negative integer, got '${text}'`);
  return parsed;
};

/**
 * LEASEHOLD_CLOUD (LEASEHOLD_EFFECTS is read as an older name for it), and for `openstack`:
 * LEASEHOLD_OPENSTACK_AUTH_URL, _USERNAME, _PASSWORD, _PROJECT_NAME (service), _USER_DOMAIN_NAME and
 * _PROJECT_DOMAIN_NAME (Default), _REGION_NAME, _INTERFACE (public), LEASEHOLD_FREEPOOL_NAME (freepool),
 * LEASEHOLD_FREEPOOL_PER_ZONE (false), LEASEHOLD_NOVA_NOTIFICATIONS_URL (off when unset), LEASEHOLD_HOST_POLLING_SECONDS (60),
 * LEASEHOLD_PREEMPTIBLE (false) and LEASEHOLD_PREEMPTIBLE_GRACE_SECONDS (60).
 */
export const parseCloudConfig = (env: NodeJS.ProcessEnv = process.env): CloudConfig => {
  const kind = optional(env.LEASEHOLD_CLOUD) ?? optional(env.LEASEHOLD_EFFECTS) ?? 'standalone';
  if (kind === 'standalone') return { kind };
  if (kind !== 'openstack') throw new CloudConfigError(`Unknown LEASEHOLD_CLOUD value '${kind}'; supported: ${CLOUD_KINDS.join(', ')}`);
  const endpointInterface = optional(env.LEASEHOLD_OPENSTACK_INTERFACE) ?? 'public';
  if (!(INTERFACES as readonly string[]).includes(endpointInterface)) {
    throw new CloudConfigError(`LEASEHOLD_OPENSTACK_INTERFACE must be one of ${INTERFACES.join(', ')}, got '${endpointInterface}'`);
  }
  return {
    kind,
    openstack: {
      credentials: {
        authUrl: required(env, 'LEASEHOLD_OPENSTACK_AUTH_URL'),
        username: required(env, 'LEASEHOLD_OPENSTACK_USERNAME'),
        password: required(env, 'LEASEHOLD_OPENSTACK_PASSWORD'),
        projectName: optional(env.LEASEHOLD_OPENSTACK_PROJECT_NAME) ?? 'service',
        userDomainName: optional(env.LEASEHOLD_OPENSTACK_USER_DOMAIN_NAME) ?? 'Default',
        projectDomainName: optional(env.LEASEHOLD_OPENSTACK_PROJECT_DOMAIN_NAME) ?? 'Default',
        regionName: optional(env.LEASEHOLD_OPENSTACK_REGION_NAME),
      },
      interface: endpointInterface as EndpointInterface,
      freepoolName: optional(env.LEASEHOLD_FREEPOOL_NAME) ?? 'freepool',
      freepoolPerZone: flag(env.LEASEHOLD_FREEPOOL_PER_ZONE, false, 'LEASEHOLD_FREEPOOL_PER_ZONE'),
      notificationsUrl: optional(env.LEASEHOLD_NOVA_NOTIFICATIONS_URL),
      pollingIntervalSeconds: seconds(env.LEASEHOLD_HOST_POLLING_SECONDS, 60, 'LEASEHOLD_HOST_POLLING_SECONDS'),
      preemptible: flag(env.LEASEHOLD_PREEMPTIBLE, false, 'LEASEHOLD_PREEMPTIBLE')
        ? { graceSeconds: seconds(env.LEASEHOLD_PREEMPTIBLE_GRACE_SECONDS, 60, 'LEASEHOLD_PREEMPTIBLE_GRACE_SECONDS') }
        : null,
    },
  };
};
