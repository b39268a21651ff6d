/**
 * What a trust call reads of the command it serves (the application's CommandMetadata is one): the caller
 * whose roles are delegated, with its own token, and the request's ids for Keystone and the log.
 */
export interface TrustMetadata {
  readonly actor: {
    readonly userId: string;
    readonly projectId: string;
    readonly roles: readonly string[];
    /** The caller's own token (a CallerToken), revealed only for the call made as the caller; null when there is none. */
    readonly token: { reveal(): string } | null;
  };
  readonly correlationId: string;
  readonly causationId: string;
}

/**
 * A lease's Keystone trust (caller -> Leasehold's service user), through which the reactor later acts
 * as the caller (upstream Blazar's `trust_id`). Made before the lease is recorded, outside any decision.
 */
export interface LeaseTrusts {
  /** The new lease's trust id, or null where leases get none; throws a DomainError when Keystone refuses or cannot answer. */
  create(metadata: TrustMetadata): Promise<string | null>;
  /** Best effort, never throws: the trust of a lease that was then refused. */
  discard(trustId: string, metadata: TrustMetadata): Promise<void>;
  /**
   * Best effort, never throws: the trust of a lease deleted before it started (no end effects will
   * delete it). Deleted by the service user through the trust, so an admin's delete works too.
   */
  release(trustId: string, metadata: TrustMetadata): Promise<void>;
}

/** Without Keystone auth on OpenStack there is no caller token to delegate from: leases keep trust_id null. */
export const NO_LEASE_TRUSTS: LeaseTrusts = {
  create: () => Promise.resolve(null),
  discard: () => Promise.resolve(),
  release: () => Promise.resolve(),
};
