import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { invalid } from '#domain/index.js';

/**
 * Where webhooks may be sent (LEASEHOLD_WEBHOOK_ALLOWED_TARGETS): a comma-separated list of
 * `public` (any address outside the ranges below), host names (`hooks.example.com`, `*.example.com`:
 * any address they resolve to) and addresses or CIDRs (`127.0.0.1`, `10.1.0.0/16`, `fd00::/8`).
 * Default `public`: tenants cannot reach loopback, link-local (the cloud's metadata service), private,
 * shared or unique-local addresses of the operator's network.
 */
export interface TargetPolicy {
  readonly publicAllowed: boolean;
  readonly hostNames: readonly string[];
  readonly networks: BlockList;
  readonly text: string;
}

const REFUSED_V4 = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const;
const REFUSED_V6 = [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const;

const refused = new BlockList();
for (const [address, prefix] of REFUSED_V4) refused.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of REFUSED_V6) refused.addSubnet(address, prefix, 'ipv6');

/** `::ffff:10.0.0.1` reaches 10.0.0.1: an IPv4-mapped address is judged as the IPv4 address it maps. */
const unmapped = (address: string): string => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
};

const family = (address: string): 'ipv4' | 'ipv6' => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

const addNetwork = (networks: BlockList, entry: string): void => {
  const [address = '', prefixText] = entry.split('/');
  const version = isIP(address);
  const prefix = prefixText === undefined ? (version === 6 ? 128 : 32) : Number(prefixText);
  if (version === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > (version === 6 ? 128 : 32)) {
    throw new Error(`LEASEHOLD_WEBHOOK_ALLOWED_TARGETS: '${entry}' is neither public, a host name, an address nor a CIDR`);
  }
  networks.addSubnet(address, prefix, version === 6 ? 'ipv6' : 'ipv4');
};

const HOST_NAME = /^(\*\.)?([a-z0-9-]+\.)*[a-z0-9-]+$/;

export const parseTargetPolicy = (raw: string | undefined): TargetPolicy => {
  const text = raw === undefined || raw.trim() === '' ? 'public' : raw.trim();
  const networks = new BlockList();
  const hostNames: string[] = [];
  let publicAllowed = false;
  for (const entry of text
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part !== '')) {
    if (entry === 'public') publicAllowed = true;
    else if (isIP(entry.split('/')[0] ?? '') !== 0) addNetwork(networks, entry);
    else if (HOST_NAME.test(entry)) hostNames.push(entry);
    else throw new Error(`LEASEHOLD_WEBHOOK_ALLOWED_TARGETS: '${entry}' is neither public, a host name, an address nor a CIDR`);
  }
  return { publicAllowed, hostNames, networks, text };
};

/** A host name the operator listed: any address it resolves to is allowed. */
export const hostNameListed = (policy: TargetPolicy, hostName: string): boolean => {
  const name = hostName.toLowerCase();
  return policy.hostNames.some((entry) => (entry.startsWith('*.') ? name.endsWith(entry.slice(1)) : name === entry));
};

/** Whether a connection to this address is allowed (the last check, on the address actually dialled). */
export const addressAllowed = (policy: TargetPolicy, rawAddress: string): boolean => {
  const address = unmapped(rawAddress);
  if (isIP(address) === 0) return false;
  if (policy.networks.check(address, family(address))) return true;
  return policy.publicAllowed && !refused.check(address, family(address));
};

/** URL brackets an IPv6 host (`[::1]`); addresses are compared without them. */
export const urlHost = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

const MAX_URL_LENGTH = 2048;

/** The URL's form: http or https, no user name or password (they would travel in every request), no fragment. */
export const parseWebhookUrl = (raw: string): URL => {
  if (raw.length > MAX_URL_LENGTH) throw invalid('MALFORMED_PARAMETER', `Malformed parameter url (at most ${MAX_URL_LENGTH} characters)`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('MALFORMED_PARAMETER', 'Malformed parameter url (not an absolute URL)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid('MALFORMED_PARAMETER', 'Malformed parameter url (the scheme must be http or https)');
  if (url.username !== '' || url.password !== '')
    throw invalid('MALFORMED_PARAMETER', 'Malformed parameter url (must not carry a user name or password)');
  if (raw.includes('#')) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter url (must not have a fragment)');
  if (url.hostname === '') throw invalid('MALFORMED_PARAMETER', 'Malformed parameter url (no host)');
  return url;
};

export type Resolve = (hostName: string) => Promise<readonly string[]>;

export const resolveAll: Resolve = async (hostName) =>
  (await lookup(hostName, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * The target check at registration: a listed host name passes; otherwise every address the host is
 * (or resolves to now) must be allowed. Delivery checks again on the address it connects to, since a
 * name may resolve elsewhere later (DNS rebinding).
 */
export const checkWebhookTarget = async (policy: TargetPolicy, url: URL, resolve: Resolve = resolveAll): Promise<void> => {
  const host = urlHost(url);
  if (hostNameListed(policy, host)) return;
  let addresses: readonly string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      throw invalid('WEBHOOK_TARGET_UNRESOLVED', `Malformed parameter url (host ${host} does not resolve)`);
    }
  }
  if (addresses.length === 0 || !addresses.every((address) => addressAllowed(policy, address))) {
    throw invalid(
      'WEBHOOK_TARGET_REFUSED',
      `Malformed parameter url (host ${host} is not an allowed webhook target; LEASEHOLD_WEBHOOK_ALLOWED_TARGETS)`,
    );
  }
};
