import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { invalid } from '#domain/index.js';
import { embeddedIpv4, publicAddress } from './webhook-addresses.js';

/**
 * Where webhooks may be sent (LEASEHOLD_WEBHOOK_ALLOWED_TARGETS): a comma-separated list of
 * `public` (any address outside the special-purpose ranges, webhook-addresses.ts), host names
 * (`hooks.example.com`, `*.example.com`: any address they resolve to) and addresses or CIDRs (`127.0.0.1`,
 * `10.1.0.0/16`, `fd00::/8`). Default `public`: tenants cannot reach loopback, link-local (the cloud's
 * metadata service), private, shared or unique-local addresses of the operator's network.
 */
export interface TargetPolicy {
  readonly publicAllowed: boolean;
  readonly hostNames: readonly string[];
  readonly networks: BlockList;
  readonly text: string;
}

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

/**
 * Whether a connection to this address is allowed (the last check, on the address actually dialled). An
 * address that embeds an IPv4 address is judged as that address, by the allow-list too.
 */
export const addressAllowed = (policy: TargetPolicy, address: string): boolean => {
  const version = isIP(address);
  if (version === 0 || address.includes('%')) return false;
  const inside = version === 6 ? embeddedIpv4(address) : null;
  if (inside !== null) return inside.every((ipv4) => addressAllowed(policy, ipv4));
  if (policy.networks.check(address, version === 6 ? 'ipv6' : 'ipv4')) return true;
  return policy.publicAllowed && publicAddress(address);
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
