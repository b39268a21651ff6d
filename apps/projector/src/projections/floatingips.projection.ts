import type { FloatingIpEvent } from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { FloatingIpEntity, FloatingIpVersionEntity, evolveFloatingIpView } from '#read-model/index.js';
import { type Projection, findRow } from '../projection.js';
import { keepVersion } from '../versions.js';

/** lh_floatingips: the Blazar floating-IP document per registered address, and its past versions. */
export const floatingIpsProjection: Projection = {
  name: 'floatingips',
  canHandle: ['FloatingIp.Registered', 'FloatingIp.Unregistered'],
  async apply(em, recorded: RecordedEvent): Promise<void> {
    const event = { type: recorded.type, data: recorded.data } as FloatingIpEvent;
    const id = event.data.floatingIpId;
    const row = await findRow(em, FloatingIpEntity, { id });
    const view = evolveFloatingIpView(row?.doc ?? null, event);
    if (row !== null && view === row.doc) return;
    if (row !== null) keepVersion(em, FloatingIpVersionEntity, row.since, recorded.position, { id, sortKey: row.sortKey, doc: row.doc });
    if (view === null) {
      if (row !== null) em.remove(row);
      return;
    }
    const columns = { networkId: view.floating_network_id, address: view.floating_ip_address, doc: view, since: recorded.position };
    // the registration's log position orders the list, the same in a rebuild as live
    if (row === null) em.create(FloatingIpEntity, { id, sortKey: recorded.position, ...columns });
    else em.assign(row, columns);
  },
};
