import { leaseStream } from '#domain/index.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { UsageError } from './cli-context.js';

interface KnownLease {
  readonly name: string;
  readonly deleted: boolean;
}

const PAGE = 10_000;
const NAMING = ['Lease.Created', 'Lease.Renamed', 'Lease.Deleted'];

/** Every lease's current name, read from the log (any deployment has one; a read model may lag or be elsewhere). */
const knownLeases = async (store: EventStore): Promise<Map<string, KnownLease>> => {
  const leases = new Map<string, KnownLease>();
  for (let from = 0; ;) {
    const events = await store.readAll({ from, limit: PAGE, filter: { types: NAMING } });
    for (const event of events) {
      const data = event.data as { readonly leaseId: string; readonly name?: string };
      const known = leases.get(data.leaseId);
      if (event.type === 'Lease.Deleted') {
        if (known !== undefined) leases.set(data.leaseId, { ...known, deleted: true });
      } else leases.set(data.leaseId, { name: data.name ?? '', deleted: false });
    }
    const last = events.at(-1);
    if (last === undefined || events.length < PAGE) return leases;
    from = last.position;
  }
};

/**
 * A lease id, or the name a lease has now. A name held by one existing lease and by deleted ones means
 * the existing one; any other clash is refused with the ids, so the operator picks.
 */
export const resolveLease = async (store: EventStore, idOrName: string): Promise<string> => {
  if ((await store.streamRevision(leaseStream(idOrName))) >= 0) return idOrName;
  const named = [...(await knownLeases(store))].filter(([, lease]) => lease.name === idOrName);
  const existing = named.filter(([, lease]) => !lease.deleted);
  const [only] = existing.length > 0 ? existing : named;
  if (only === undefined) throw new UsageError(`no lease has the id or name ${JSON.stringify(idOrName)}`);
  if (existing.length > 1 || (existing.length === 0 && named.length > 1)) {
    const ids = (existing.length > 0 ? existing : named).map(([id, lease]) => (lease.deleted ? `${id} (deleted)` : id));
    throw new UsageError(`${ids.length} leases are named ${JSON.stringify(idOrName)}: ${ids.join(', ')}; give the id`);
  }
  return only[0];
};
