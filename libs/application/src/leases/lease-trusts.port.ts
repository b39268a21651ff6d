import type { CommandMetadata } from '../command.js';

/**
 * A lease's Keystone trust (caller -> Leasehold's service user), through which the reactor later acts
 * as the caller (upstream Blazar's `trust_id`). Made before the lease is recorded, outside any decision.
 */
export interface LeaseTrusts {
  /** The new lease's trust id, or null where leases get none; throws a DomainError when Keystone refuses or cannot answer. */
  create(metadata: CommandMetadata): Promise<string | null>;
  /** Best effort, never throws: the trust of a lease that was then refused. */
  discard(trustId: string, metadata: CommandMetadata): Promise<void>;
  /**
   * Best effort, never throws: the trust of a lease deleted before it started (no end effects will
   * delete it). Deleted by the service user through the trust, so an admin's delete works too.
   */
  release(trustId: string, metadata: CommandMetadata): Promise<void>;
}

/** Without Keystone auth on OpenStack there is no caller token to delegate from: leases keep trust_id null. */
export const NO_LEASE_TRUSTS: LeaseTrusts = {
  create: () => Promise.resolve(null),
  discard: () => Promise.resolve(),
  release: () => Promise.resolve(),
};
