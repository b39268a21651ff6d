import type { HostEvent } from '#domain/index.js';
import type { FoldableEvent } from '#event-store/event-store.port.js';
import { HostEntity, HostVersionEntity, evolveHostView } from '#read-model/index.js';
import type { Projection } from '../projection.js';
import { keepVersion } from '../versions.js';

const hostIdOf = (event: FoldableEvent): string => (event.data as HostEvent['data']).hostId;

/** lh_hosts: the Blazar host document (capabilities merged) per registered host, and its past versions. */
export const hostsProjection: Projection = {
  name: 'hosts',
  canHandle: [
    'Host.Registered',
    'Host.CapabilitiesUpdated',
    'Host.ReservableChanged',
    'Host.Unregistered',
    'Host.WentDown',
    'Host.DownReasonsChanged',
    'Host.CameUp',
  ],
  async preload(rows, events): Promise<void> {
    await rows.table(HostEntity).load(events.map(hostIdOf));
  },
  apply(rows, recorded: FoldableEvent): void {
    const event = { type: recorded.type, data: recorded.data } as HostEvent;
    const hostId = event.data.hostId;
    const hosts = rows.table(HostEntity);
    const row = hosts.loaded(hostId);
    const record = evolveHostView(row === null ? null : { view: row.doc, capabilities: row.capabilities }, event);
    if (row !== null)
      keepVersion(rows, HostVersionEntity, row.since, recorded.position, { id: row.id, sortKey: row.sortKey, doc: row.doc });
    if (record === null) {
      if (row !== null) hosts.remove(hostId);
      return;
    }
    hosts.put({
      id: hostId,
      hypervisorHostname: record.view.hypervisor_hostname,
      sortKey: row?.sortKey ?? Number(hostId),
      doc: record.view,
      capabilities: record.capabilities,
      since: recorded.position,
    });
  },
};
