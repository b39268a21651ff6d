import type { LeaseEvent, LeasePreemptibleServerReaped } from './lease.events.js';
import type { EffectRecord } from './lease.types.js';

/** The effects adapters' record of one preemptible server shut down and deleted on a host the lease took. */
export const PREEMPTIBLE_REAP_OPERATION = 'preemptible.reap';

const text = (record: EffectRecord, key: string): string | null => {
  const value = record[key];
  return typeof value === 'string' ? value : null;
};

/**
 * One Lease.PreemptibleServerReaped per reap record. The records come from our own adapters; one
 * missing a field is dropped rather than failing the lease's outcome (it stays in the effects).
 */
export const reapedServerEvents = (leaseId: string, reservationId: string, effects: readonly EffectRecord[], at: string): LeaseEvent[] =>
  effects.flatMap((record): LeasePreemptibleServerReaped[] => {
    if (record.operation !== PREEMPTIBLE_REAP_OPERATION) return [];
    const [hostId, host, serverId, projectId, flavor] = ['host_id', 'host', 'server_id', 'project_id', 'flavor'].map((key) =>
      text(record, key),
    );
    if (hostId == null || host == null || serverId == null || projectId == null || flavor == null || typeof record.stopped !== 'boolean')
      return [];
    return [
      {
        type: 'Lease.PreemptibleServerReaped',
        data: { leaseId, reservationId, hostId, host, serverId, projectId, flavor, stopped: record.stopped, at },
      },
    ];
  });
