import type { LeaseTrusts } from '#plugins/ports/lease-trusts.port.js';
import { NO_LEASE_TRUSTS } from '#plugins/ports/lease-trusts.port.js';
import { KeystoneLeaseTrusts, KeystoneTrustsClient, type OpenStackSession } from '#plugins/openstack/index.js';
import type { AuthMode } from '../config.js';

export const LEASE_TRUSTS = Symbol('LEASE_TRUSTS');

const log = (line: Record<string, unknown>): void => console.error(JSON.stringify({ app: 'api', ...line }));

/** Trusts need the caller's Keystone token and a cloud to act in: auth mode keystone on OpenStack only. */
export const leaseTrustsFor = (auth: AuthMode, session: OpenStackSession | null): LeaseTrusts =>
  auth === 'keystone' && session !== null ? new KeystoneLeaseTrusts(new KeystoneTrustsClient(session), log) : NO_LEASE_TRUSTS;
