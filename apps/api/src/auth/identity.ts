import type { Credentials } from '#application/policy/policy-rule.js';

/** Who a request acts as, once its token (or auth mode `none`) has been accepted. */
export interface Identity {
  readonly userId: string;
  readonly projectId: string;
  readonly roles: readonly string[];
  readonly userName: string | null;
  readonly projectName: string | null;
  readonly userDomainId: string | null;
  readonly projectDomainId: string | null;
  /**
   * oslo.context's `is_admin` (the `is_admin:True` check): true only for the local operator of auth
   * mode `none`; token users are admins through their roles (`role:admin`), which the policy decides.
   */
  readonly isAdmin: boolean;
}

/** Validates the X-Auth-Token of a request: the identity, or null when the token is missing or not valid. */
export interface Authenticator {
  authenticate(token: string | undefined): Promise<Identity | null>;
}

/** The identity service could not answer (unreachable, or refused Leasehold's own credentials): 503. */
export class IdentityServiceUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdentityServiceUnavailable';
  }
}

/** oslo.context's `to_policy_values()` for an identity. */
export const credentialsOf = (identity: Identity): Credentials => ({
  user_id: identity.userId,
  project_id: identity.projectId,
  roles: identity.roles,
  is_admin: identity.isAdmin,
  user_name: identity.userName,
  project_name: identity.projectName,
  user_domain_id: identity.userDomainId,
  project_domain_id: identity.projectDomainId,
});
