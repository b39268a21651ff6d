import type { FloatingIpEvent } from '#domain/index.js';
import type { FoldableEvent } from '#event-store/event-store.port.js';
import { FloatingIpEntity, FloatingIpVersionEntity, evolveFloatingIpView } from '#read-model/index.js';
import type { Projection } from '../projection.js';
import { keepVersion } from '../versions.js';

const idOf = (event: FoldableEvent): string => (event.data as FloatingIpEvent['data']).floatingIpId;

/** lh_floatingips: the Blazar floating-IP document per registered address, and its past versions. */
export const floatingIpsProjection: Projection = {
  name: 'floatingips',
  canHandle: ['FloatingIp.Registered', 'FloatingIp.Unregistered'],
  async preload(rows, events): Promise<void> {
    await rows.table(FloatingIpEntity).load(events.map(idOf));
  },
  apply(rows, recorded: FoldableEvent): void {
    const event = { type: recorded.type, data: recorded.data } as FloatingIpEvent;
    const id = event.data.floatingIpId;
    const floatingIps = rows.table(FloatingIpEntity);
    const row = floatingIps.loaded(id);
    const view = evolveFloatingIpView(row?.doc ?? null, event);
    if (row !== null && view === row.doc) return;
    if (row !== null) keepVersion(rows, FloatingIpVersionEntity, row.since, recorded.position, { id, sortKey: row.sortKey, doc: row.doc });
    if (view === null) {
      if (row !== null) floatingIps.remove(id);
      return;
    }
    // the registration's log position orders the list, the same in a rebuild as live
    const sortKey = row?.sortKey ?? recorded.position;
    floatingIps.put({
      id,
      networkId: view.floating_network_id,
      address: view.floating_ip_address,
      sortKey,
      doc: view,
      since: recorded.position,
    });
  },
};
