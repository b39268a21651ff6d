import type { HostEvent } from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { HostEntity, HostVersionEntity, evolveHostView } from '#read-model/index.js';
import { type Projection, findRow } from '../projection.js';
import { keepVersion } from '../versions.js';

/** lh_hosts: the Blazar host document (capabilities merged) per registered host, and its past versions. */
export const hostsProjection: Projection = {
  name: 'hosts',
  canHandle: ['Host.Registered', 'Host.CapabilitiesUpdated', 'Host.ReservableChanged', 'Host.Unregistered'],
  async apply(em, recorded: RecordedEvent): Promise<void> {
    const event = { type: recorded.type, data: recorded.data } as HostEvent;
    const hostId = event.data.hostId;
    const row = await findRow(em, HostEntity, { id: hostId });
    const record = evolveHostView(row === null ? null : { view: row.doc, capabilities: row.capabilities }, event);
    if (row !== null) keepVersion(em, HostVersionEntity, row.since, recorded.position, { id: row.id, sortKey: row.sortKey, doc: row.doc });
    if (record === null) {
      if (row !== null) em.remove(row);
      return;
    }
    const columns = { hypervisorHostname: record.view.hypervisor_hostname, doc: record.view, capabilities: record.capabilities, since: recorded.position };
    if (row === null) em.create(HostEntity, { id: hostId, sortKey: Number(hostId), ...columns });
    else em.assign(row, columns);
  },
};
