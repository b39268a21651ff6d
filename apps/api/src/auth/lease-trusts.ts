import { BadRequestException, ForbiddenException, type HttpException, ServiceUnavailableException, UnauthorizedException } from '@nestjs/common';
import { KeystoneTrustsClient, OpenStackError, OpenStackHttpError, type OpenStackSession } from '../../../../libs/plugins/src/openstack/index.js';
import type { AuthMode } from '../config.js';
import type { RequestContext } from '../http/request-context.js';

/**
 * A lease's Keystone trust (caller -> Leasehold's service user), through which the reactor later acts
 * as the caller (upstream Blazar's `trust_id`). Made before the lease is recorded.
 */
export interface LeaseTrusts {
  /** The new lease's trust id, or null where leases get none; throws an HttpException when Keystone refuses or cannot answer. */
  create(context: RequestContext): Promise<string | null>;
  /** Best effort, never throws: the trust of a lease that was then refused. */
  discard(trustId: string, context: RequestContext): Promise<void>;
  /**
   * Best effort, never throws: the trust of a lease deleted before it started (no end effects will
   * delete it). Deleted by the service user through the trust, so an admin's delete works too.
   */
  release(trustId: string, context: RequestContext): Promise<void>;
}

export const LEASE_TRUSTS = Symbol('LEASE_TRUSTS');

/** Without Keystone auth on OpenStack there is no caller token to delegate from: leases keep trust_id null. */
export const NO_LEASE_TRUSTS: LeaseTrusts = { create: () => Promise.resolve(null), discard: () => Promise.resolve(), release: () => Promise.resolve() };

/** Keystone's answer to the trust request, as the API answers the lease request; nothing was recorded. */
export const trustRefusal = (error: OpenStackError): HttpException => {
  const why = error instanceof OpenStackHttpError ? error.cloudMessage : error.message;
  if (!(error instanceof OpenStackHttpError) || error.transient) {
    return new ServiceUnavailableException(`Keystone is unavailable, nothing was changed; try again later (creating the lease's trust: ${why})`);
  }
  const message = `Keystone refused the lease's trust (HTTP ${error.status}): ${why}`;
  if (error.status === 401) return new UnauthorizedException(message);
  if (error.status === 403) return new ForbiddenException(message);
  return new BadRequestException(message);
};

const callerTokenOf = (context: RequestContext): string => {
  if (context.callerToken === null) throw new Error('a lease trust needs the caller token (auth mode keystone)');
  return context.callerToken.reveal();
};

/** Auth mode keystone on OpenStack: the caller's roles on its project, delegated with impersonation, as upstream does. */
export class KeystoneLeaseTrusts implements LeaseTrusts {
  constructor(
    private readonly client: KeystoneTrustsClient,
    private readonly log: (line: Record<string, unknown>) => void = (line) => console.error(JSON.stringify({ app: 'api', ...line })),
  ) {}

  async create(context: RequestContext): Promise<string> {
    const grant = { trustorUserId: context.actor.userId, projectId: context.actor.projectId, roles: context.roles };
    try {
      return (await this.clientFor(context).createTrust(callerTokenOf(context), grant)).id;
    } catch (error) {
      if (error instanceof OpenStackError) throw trustRefusal(error);
      throw error;
    }
  }

  async discard(trustId: string, context: RequestContext): Promise<void> {
    try {
      await this.clientFor(context).deleteTrustAsTrustor(callerTokenOf(context), trustId);
    } catch (error) {
      this.log({ trust: 'left behind', trust_id: trustId, request_id: context.requestId, error: error instanceof Error ? error.message : String(error) });
    }
  }

  async release(trustId: string, context: RequestContext): Promise<void> {
    try {
      await this.clientFor(context).deleteTrust(trustId);
    } catch (error) {
      this.log({ trust: 'left behind', trust_id: trustId, request_id: context.requestId, error: error instanceof Error ? error.message : String(error) });
    }
  }

  private clientFor(context: RequestContext): KeystoneTrustsClient {
    return this.client.withRequestId(context.globalRequestId ?? context.requestId);
  }
}

export const leaseTrustsFor = (auth: AuthMode, session: OpenStackSession | null): LeaseTrusts =>
  auth === 'keystone' && session !== null ? new KeystoneLeaseTrusts(new KeystoneTrustsClient(session)) : NO_LEASE_TRUSTS;
