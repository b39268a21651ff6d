import type { FloatingIpEvent } from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { FloatingIpEntity, evolveFloatingIpView } from '#read-model/index.js';
import { type Projection, findRow } from '../projection.js';

/** lh_floatingips: the Blazar floating-IP document per registered address. */
export const floatingIpsProjection: Projection = {
  name: 'floatingips',
  canHandle: ['FloatingIp.Registered', 'FloatingIp.Unregistered'],
  async apply(em, recorded: RecordedEvent): Promise<void> {
    const event = { type: recorded.type, data: recorded.data } as FloatingIpEvent;
    const id = event.data.floatingIpId;
    const row = await findRow(em, FloatingIpEntity, { id });
    const view = evolveFloatingIpView(row?.doc ?? null, event);
    if (view === null) {
      if (row !== null) em.remove(row);
      return;
    }
    const columns = { networkId: view.floating_network_id, address: view.floating_ip_address, doc: view };
    // the registration's log position orders the list, the same in a rebuild as live
    if (row === null) em.create(FloatingIpEntity, { id, sortKey: recorded.position, ...columns });
    else em.assign(row, columns);
  },
};
