/**
 * The real control plane of scripts/services/openstack/up.sh, found through the env file it writes
 * (.ci/run exports its path as LEASEHOLD_TEST_OPENSTACK_ENV). Without it the OpenStack tests are skipped.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describeError } from '#domain/index.js';
import {
  type KeystoneCredentials,
  type NovaClient,
  OpenStackSession,
  type PlacementClient,
  type Server,
  type SessionOptions,
  ignoreNotFound,
  isNotFound,
} from '#plugins/openstack/index.js';

export const OPENSTACK_ENV_FILE = process.env.LEASEHOLD_TEST_OPENSTACK_ENV;

export interface OpenStackTestEnv {
  readonly authUrl: string;
  readonly admin: KeystoneCredentials;
  /** Leasehold's own service user (admin in project service). */
  readonly service: KeystoneCredentials;
  /** A member of project demo. */
  readonly demo: KeystoneCredentials;
  readonly other: KeystoneCredentials;
  readonly demoProjectId: string;
  readonly otherProjectId: string;
  readonly computeHosts: readonly string[];
  readonly imageId: string;
  readonly flavorId: string;
  readonly publicNetworkId: string;
  readonly publicSubnetId: string;
  readonly publicSubnetCidr: string;
  readonly publicPool: { readonly start: string; readonly end: string };
  readonly privateNetworkId: string;
  readonly amqpUrl: string;
  readonly urls: { readonly compute: string; readonly placement: string; readonly network: string; readonly image: string };
  /** The control plane's state directory (configs and service logs). */
  readonly root: string;
}

const parse = (text: string): ReadonlyMap<string, string> => {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^\s*(?:export\s+)?([A-Z0-9_]+)=(.*)$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) values.set(match[1], match[2].trim());
  }
  return values;
};

export const loadOpenStackEnv = (file: string): OpenStackTestEnv => {
  const values = parse(readFileSync(file, 'utf8'));
  const get = (key: string): string => {
    const value = values.get(key);
    if (value === undefined || value === '') throw new Error(`${file} has no ${key}`);
    return value;
  };
  const user = (username: string, password: string, projectName: string): KeystoneCredentials => ({
    authUrl: get('OS_AUTH_URL'),
    username,
    password,
    projectName,
    userDomainName: 'Default',
    projectDomainName: 'Default',
    regionName: get('OS_REGION_NAME'),
  });
  return {
    authUrl: get('OS_AUTH_URL'),
    admin: user(get('OS_USERNAME'), get('OS_PASSWORD'), get('OS_PROJECT_NAME')),
    service: user(get('LEASEHOLD_OS_SERVICE_USERNAME'), get('LEASEHOLD_OS_SERVICE_PASSWORD'), get('LEASEHOLD_OS_SERVICE_PROJECT_NAME')),
    demo: user(get('LEASEHOLD_OS_DEMO_USERNAME'), get('LEASEHOLD_OS_DEMO_PASSWORD'), get('LEASEHOLD_OS_DEMO_PROJECT_NAME')),
    other: user(get('LEASEHOLD_OS_OTHER_USERNAME'), get('LEASEHOLD_OS_OTHER_PASSWORD'), get('LEASEHOLD_OS_OTHER_PROJECT_NAME')),
    demoProjectId: get('LEASEHOLD_OS_DEMO_PROJECT_ID'),
    otherProjectId: get('LEASEHOLD_OS_OTHER_PROJECT_ID'),
    computeHosts: get('LEASEHOLD_OS_COMPUTE_HOSTS').split(','),
    imageId: get('LEASEHOLD_OS_IMAGE_ID'),
    flavorId: get('LEASEHOLD_OS_FLAVOR_ID'),
    publicNetworkId: get('LEASEHOLD_OS_PUBLIC_NETWORK_ID'),
    publicSubnetId: get('LEASEHOLD_OS_PUBLIC_SUBNET_ID'),
    publicSubnetCidr: get('LEASEHOLD_OS_PUBLIC_SUBNET_CIDR'),
    publicPool: { start: get('LEASEHOLD_OS_PUBLIC_POOL_START'), end: get('LEASEHOLD_OS_PUBLIC_POOL_END') },
    privateNetworkId: get('LEASEHOLD_OS_PRIVATE_NETWORK_ID'),
    amqpUrl: get('LEASEHOLD_OS_AMQP_URL'),
    urls: {
      compute: get('LEASEHOLD_OS_COMPUTE_URL'),
      placement: get('LEASEHOLD_OS_PLACEMENT_URL'),
      network: get('LEASEHOLD_OS_NETWORK_URL'),
      image: get('LEASEHOLD_OS_IMAGE_URL'),
    },
    root: get('LEASEHOLD_OS_ROOT'),
  };
};

/** The env of the running control plane; only call it inside a describe.skipIf(!OPENSTACK_ENV_FILE). */
export const openStackEnv = (): OpenStackTestEnv => loadOpenStackEnv(OPENSTACK_ENV_FILE ?? '');

/** The OpenStack driver's settings for a Leasehold under test: the env file's service user (`overrides` win). */
export const cloudSystemEnv = (env: OpenStackTestEnv, overrides: Readonly<Record<string, string>> = {}): Record<string, string> => ({
  LEASEHOLD_CLOUD: 'openstack',
  LEASEHOLD_OPENSTACK_AUTH_URL: env.service.authUrl,
  LEASEHOLD_OPENSTACK_USERNAME: env.service.username,
  LEASEHOLD_OPENSTACK_PASSWORD: env.service.password,
  LEASEHOLD_OPENSTACK_PROJECT_NAME: env.service.projectName,
  LEASEHOLD_OPENSTACK_REGION_NAME: env.service.regionName ?? '',
  ...overrides,
});

/**
 * A test's cleanup of a host's child provider `blazar_<host>`: its inventories and traits go, the provider
 * stays. Deleting it would break builds on that compute for the rest of the run (nova-compute caches its
 * provider tree; see docs/openstack.md), as Leasehold's own unenrollment knows.
 */
export const emptyChildProvider = async (placement: PlacementClient, host: string): Promise<void> => {
  const child = await placement.findResourceProvider(`blazar_${host}`);
  if (child === null) return;
  for (const resourceClass of Object.keys((await placement.getInventories(child.uuid)).inventories)) {
    await ignoreNotFound(placement.deleteInventory(child.uuid, resourceClass));
  }
  await placement.updateProviderTraits(child.uuid, () => []);
};

export const sessionFor = (credentials: KeystoneCredentials, options: SessionOptions = {}): OpenStackSession =>
  OpenStackSession.create(credentials, options);

/** A name no other test run uses. */
export const uniqueName = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

/** Polls `probe` until it returns a value other than undefined; fails after `timeoutMs` with the last error. */
export const eventually = async <T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
  intervalMs = 500,
): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last === null ? '' : `: ${describeError(last)}`}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
};

/** The hosts of the aggregate of that name, or null when Nova has no such aggregate. */
export const aggregateMembers = async (nova: NovaClient, name: string): Promise<readonly string[] | null> =>
  (await nova.findAggregate(name))?.hosts ?? null;

/** Nova no longer knows the server. */
export const serverGone = (nova: NovaClient, id: string): Promise<boolean> =>
  nova.getServer(id).then(
    () => false,
    (error: unknown) => isNotFound(error),
  );

/** The server once Nova has scheduled and built it or given up (out of BUILD: ACTIVE, or ERROR with a fault). */
export const builtServer = (nova: NovaClient, id: string, timeoutMs = 90_000): Promise<Server> =>
  eventually(
    'the server to leave BUILD',
    async () => {
      const server = await nova.getServer(id);
      return server.status === 'BUILD' ? undefined : server;
    },
    timeoutMs,
  );

/** The id of the host's nova-compute service. */
export const computeServiceId = async (nova: NovaClient, host: string): Promise<string> => {
  const [service] = await nova.listServices({ binary: 'nova-compute', host });
  if (service === undefined) throw new Error(`no nova-compute on ${host}`);
  return service.id;
};

/** Enables or disables the host's nova-compute (a disable says which test did it). */
export const setComputeStatus = async (nova: NovaClient, host: string, status: 'enabled' | 'disabled', reason: string): Promise<void> => {
  await nova.updateService(await computeServiceId(nova, host), status === 'enabled' ? { status } : { status, disabled_reason: reason });
};

/**
 * What docs/openstack.md tells a host reservation's tenant to do: an image of its own, private, that
 * requires the reservation's trait; 1 MiB uploaded and active. Its id, also pushed onto `created` (for the
 * caller's cleanup) as soon as it exists.
 */
export const traitImage = async (session: OpenStackSession, trait: string, namePrefix: string, created: string[]): Promise<string> => {
  const body = {
    name: uniqueName(namePrefix),
    disk_format: 'raw',
    container_format: 'bare',
    visibility: 'private',
    [`trait:${trait}`]: 'required',
  };
  const { id } = (await session.request<{ id: string }>('image', 'POST', '/v2/images', { body })).body;
  created.push(id);
  await session.request('image', 'PUT', `/v2/images/${id}/file`, {
    raw: { contentType: 'application/octet-stream', data: new Uint8Array(1024 * 1024) },
  });
  await eventually('the image to be active', async () => {
    const { status } = (await session.request<{ status: string }>('image', 'GET', `/v2/images/${id}`)).body;
    return status === 'active' ? true : undefined;
  });
  return id;
};
