import { OpenStackHttpError, ignoreNotFound, isNotFound } from './openstack.errors.js';
import type { OpenStackSession } from './openstack.session.js';

/** What a lease's trust delegates: the caller's roles on its project, to Leasehold's service user. */
export interface TrustGrant {
  readonly trustorUserId: string;
  readonly projectId: string;
  readonly roles: readonly string[];
}

export interface Trust {
  readonly id: string;
  readonly trustor_user_id: string;
  readonly trustee_user_id: string;
  readonly project_id: string;
  readonly impersonation: boolean;
  readonly roles: readonly { readonly id: string; readonly name: string }[];
}

/** The body of `POST /v3/OS-TRUST/trusts` upstream Blazar sends (blazar/utils/trusts.py): impersonating, no expiry. */
export const trustBody = (grant: TrustGrant, trusteeUserId: string): { readonly trust: Record<string, unknown> } => ({
  trust: {
    trustor_user_id: grant.trustorUserId,
    trustee_user_id: trusteeUserId,
    project_id: grant.projectId,
    impersonation: true,
    roles: [...new Set(grant.roles)].map((name) => ({ name })),
  },
});

const trustPath = (trustId: string): string => `/OS-TRUST/trusts/${encodeURIComponent(trustId)}`;

/**
 * Keystone trusts from a tenant to Leasehold's service user (the session's user), as upstream Blazar
 * makes one per lease: the tenant creates it with its own token; Leasehold later acts through it with
 * a trust-scoped token (`forTrust`), as the tenant in the tenant's project.
 */
export class KeystoneTrustsClient {
  private trustee: Promise<string> | null = null;

  constructor(
    private readonly session: OpenStackSession,
    private readonly root: KeystoneTrustsClient | null = null,
  ) {}

  /** The trustee of every lease trust, resolved once from the service user's own token. */
  serviceUserId(): Promise<string> {
    if (this.root !== null) return this.root.serviceUserId();
    this.trustee ??= this.session.userId().catch((error: unknown) => {
      this.trustee = null;
      throw error;
    });
    return this.trustee;
  }

  /** Created as the trustor, with the trustor's token (Keystone lets only the trustor delegate its roles). */
  async createTrust(trustorToken: string, grant: TrustGrant): Promise<Trust> {
    const body = trustBody(grant, await this.serviceUserId());
    return (await this.session.request<{ trust: Trust }>('identity', 'POST', '/OS-TRUST/trusts', { body, authToken: trustorToken })).body
      .trust;
  }

  /** Deleted by its trustor; false when it was already gone. */
  async deleteTrustAsTrustor(trustorToken: string, trustId: string): Promise<boolean> {
    return ignoreNotFound(this.session.request('identity', 'DELETE', trustPath(trustId), { authToken: trustorToken }));
  }

  /** The trust as its trustee sees it, or null when Keystone no longer has it. */
  async getTrust(trustId: string): Promise<Trust | null> {
    try {
      return (await this.session.request<{ trust: Trust }>('identity', 'GET', trustPath(trustId))).body.trust;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /**
   * Deleted by the trustee acting through the trust (as upstream does: an impersonating trust's token is
   * the trustor's, whom Keystone lets delete it). False when it was already gone: a deleted trust makes
   * Keystone refuse the trust-scoped token (401), so a refusal is checked against the trust itself.
   */
  async deleteTrust(trustId: string): Promise<boolean> {
    try {
      return await ignoreNotFound(this.trustSession(trustId).request('identity', 'DELETE', trustPath(trustId)));
    } catch (error) {
      if (error instanceof OpenStackHttpError && error.status === 401 && (await this.getTrust(trustId)) === null) return false;
      throw error;
    }
  }

  /** The service user's session scoped to the trust: its calls act as the trustor in the trust's project. */
  trustSession(trustId: string): OpenStackSession {
    return this.session.forTrust(trustId);
  }

  withRequestId(globalRequestId: string): KeystoneTrustsClient {
    return new KeystoneTrustsClient(this.session.withRequestId(globalRequestId), this.root ?? this);
  }
}
