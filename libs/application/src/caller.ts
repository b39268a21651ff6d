import { DomainError } from '#domain/index.js';
import type { CallerToken } from './caller-token.js';
import type { Credentials, Target } from './policy/policy-rule.js';
import type { PolicyEnforcer } from './policy/policy.enforcer.js';

/**
 * Who a command or query acts for, whatever transport brought it: a user in a project with roles,
 * or the service itself (the reactor, healing). `can` answers from the operator's policy.
 */
export interface Caller {
  readonly userId: string;
  readonly projectId: string;
  readonly roles: readonly string[];
  /** The policy's `admin` rule holds: every project's leases, private properties and flavors. */
  readonly isAdmin: boolean;
  /** Set for the service acting on its own (no user): named in the events' metadata. */
  readonly system: string | null;
  /** The caller's own token, for the few calls made as the caller (a lease's Keystone trust); null when there is none. */
  readonly token: CallerToken | null;
  /** Whether the policy allows `action` on `target` (default: the caller's own project and user). */
  can(action: string, target?: Target): boolean;
}

/** Upstream's PolicyNotAuthorized (blazar/exceptions.py): 403 `Policy doesn't allow <action> to be performed`. */
export const policyNotAuthorized = (action: string): DomainError =>
  new DomainError('POLICY_NOT_AUTHORIZED', 'forbidden', `Policy doesn't allow ${action} to be performed`);

/** Throws upstream's 403 unless the policy allows `action` on `target` for the caller. */
export const authorize = (caller: Caller, action: string, target?: Target): void => {
  if (!caller.can(action, target)) throw policyNotAuthorized(action);
};

/** The target of a call on an existing lease: the stored lease's project and user (LP#2120655). */
export const leaseTarget = (lease: { readonly projectId: string; readonly userId: string }): Target => ({
  project_id: lease.projectId,
  user_id: lease.userId,
});

export interface UserCallerInput {
  readonly userId: string;
  readonly projectId: string;
  readonly roles: readonly string[];
  /** oslo.context's `to_policy_values()`: what the policy's rules look at. */
  readonly credentials: Credentials;
  readonly policy: PolicyEnforcer;
  readonly token: CallerToken | null;
}

/** A user, as an authenticated transport knows it: oslo.context's policy values and the policy that judges them. */
export const userCaller = ({ userId, projectId, roles, credentials, policy, token }: UserCallerInput): Caller => {
  const own: Target = { project_id: projectId, user_id: userId };
  return {
    userId,
    projectId,
    roles,
    isAdmin: policy.check('admin', credentials, {}),
    system: null,
    token,
    can: (action, target = own) => policy.check(action, credentials, target),
  };
};

/** The service acting on its own behalf (the reactor's timers, healing): allowed everything, recorded by name. */
export const systemCaller = (name: string): Caller => ({
  userId: `leasehold-${name}`,
  projectId: 'leasehold',
  roles: ['admin'],
  isAdmin: true,
  system: name,
  token: null,
  can: () => true,
});
