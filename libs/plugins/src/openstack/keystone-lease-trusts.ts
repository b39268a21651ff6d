import { DomainError, type DomainErrorKind } from '#domain/index.js';
import type { LeaseTrusts, TrustMetadata } from '../ports/lease-trusts.port.js';
import type { KeystoneTrustsClient } from './keystone-trusts.client.js';
import { OpenStackError, OpenStackHttpError } from './openstack.errors.js';
import { describeError } from '#domain/index.js';

const REFUSAL_KIND: Readonly<Record<number, DomainErrorKind>> = { 401: 'unauthenticated', 403: 'forbidden' };

/** Keystone's answer to the trust request, as the lease request's answer; nothing was recorded. */
export const trustRefusal = (error: OpenStackError): DomainError => {
  const why = error instanceof OpenStackHttpError ? error.cloudMessage : error.message;
  if (!(error instanceof OpenStackHttpError) || error.transient) {
    return new DomainError(
      'KEYSTONE_UNAVAILABLE',
      'unavailable',
      `Keystone is unavailable, nothing was changed; try again later (creating the lease's trust: ${why})`,
    );
  }
  const kind = REFUSAL_KIND[error.status] ?? 'invalid';
  return new DomainError('TRUST_REFUSED', kind, `Keystone refused the lease's trust (HTTP ${error.status}): ${why}`);
};

const callerTokenOf = (metadata: TrustMetadata): string => {
  const { token } = metadata.actor;
  if (token === null) throw new Error('a lease trust needs the caller token (auth mode keystone)');
  return token.reveal();
};

/** Auth mode keystone on OpenStack: the caller's roles on its project, delegated with impersonation, as upstream does. */
export class KeystoneLeaseTrusts implements LeaseTrusts {
  constructor(
    private readonly client: KeystoneTrustsClient,
    private readonly log: (line: Record<string, unknown>) => void,
  ) {}

  async create(metadata: TrustMetadata): Promise<string> {
    const { actor } = metadata;
    const grant = { trustorUserId: actor.userId, projectId: actor.projectId, roles: actor.roles };
    try {
      return (await this.clientFor(metadata).createTrust(callerTokenOf(metadata), grant)).id;
    } catch (error) {
      if (error instanceof OpenStackError) throw trustRefusal(error);
      throw error;
    }
  }

  async discard(trustId: string, metadata: TrustMetadata): Promise<void> {
    try {
      await this.clientFor(metadata).deleteTrustAsTrustor(callerTokenOf(metadata), trustId);
    } catch (error) {
      this.leftBehind(trustId, metadata, error);
    }
  }

  async release(trustId: string, metadata: TrustMetadata): Promise<void> {
    try {
      await this.clientFor(metadata).deleteTrust(trustId);
    } catch (error) {
      this.leftBehind(trustId, metadata, error);
    }
  }

  private leftBehind(trustId: string, metadata: TrustMetadata, error: unknown): void {
    this.log({ trust: 'left behind', trust_id: trustId, request_id: metadata.causationId, error: describeError(error) });
  }

  private clientFor(metadata: TrustMetadata): KeystoneTrustsClient {
    return this.client.withRequestId(metadata.correlationId);
  }
}
