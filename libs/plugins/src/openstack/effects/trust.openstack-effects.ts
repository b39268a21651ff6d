import type { EffectRecord } from '#domain/index.js';
import { type EffectContext, type LeaseTrustEffects, done } from '../../effects.port.js';
import type { KeystoneTrustsClient } from '../keystone-trusts.client.js';
import { requestIdFor } from '../openstack.session.js';
import { recording } from './openstack-effects.support.js';

/** Upstream deletes a lease's trust with the lease; here it goes once the lease's end effects no longer need it. */
export class OpenStackTrustEffects implements LeaseTrustEffects {
  constructor(private readonly trusts: KeystoneTrustsClient) {}

  async deleteTrust(context: EffectContext, trustId: string): Promise<readonly EffectRecord[]> {
    const trusts = this.trusts.withRequestId(requestIdFor(`${context.idempotencyKey}:trust`));
    return recording(async (effects) => {
      effects.push(done({ operation: 'trust.delete', trust_id: trustId }, await trusts.deleteTrust(trustId)));
    });
  }
}
