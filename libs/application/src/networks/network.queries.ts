import type { AllocationFilter, NetworkAllocationView, NetworkPropertyRow, NetworkReads, ResourceDocument } from '#read-model/index.js';
import { networkNotFound } from '#plugins/network/network-segment.rules.js';
import { type Caller, authorize } from '../caller.js';
import type { HistoryEntry } from '../history/history-entry.js';
import type { HistoryQueries } from '../history/history.queries.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import { type PropertyListing, propertyNotFound } from '../queries/read.queries.js';

/**
 * What callers may read of network segments (the policy first, as for hosts: Chameleon's rules are admin only),
 * live or as of a log position.
 */
export class NetworkQueries {
  constructor(
    private readonly reads: NetworkReads,
    private readonly history: HistoryQueries,
  ) {}

  /** The same reads as they stood right after the event at `position`. */
  asOf(position: number): NetworkQueries {
    return new NetworkQueries(this.reads.at(position), this.history);
  }

  async networks(caller: Caller): Promise<ResourceDocument[]> {
    authorize(caller, ACTIONS.networkGet);
    return this.reads.networks();
  }

  async network(caller: Caller, networkId: string): Promise<ResourceDocument> {
    authorize(caller, ACTIONS.networkGet);
    const network = await this.reads.network(networkId);
    if (network === null) throw networkNotFound(networkId);
    return network;
  }

  /** Every segment with its reservations; without a filter only those not yet ended at `now`. */
  async allocations(caller: Caller, filter: AllocationFilter, now: string): Promise<NetworkAllocationView[]> {
    authorize(caller, ACTIONS.networkAllocations);
    return this.reads.allocations(filter, now);
  }

  async allocation(caller: Caller, networkId: string, filter: AllocationFilter, now: string): Promise<NetworkAllocationView> {
    authorize(caller, ACTIONS.networkAllocations);
    const [allocation] = await this.reads.allocations(filter, now, networkId);
    if (allocation === undefined) throw networkNotFound(networkId);
    return allocation;
  }

  /** As hosts' properties: private ones only for admins who ask for all; with `detail`, each one's values across segments. */
  async properties(caller: Caller, options: { readonly detail: boolean; readonly all: boolean }): Promise<PropertyListing[]> {
    authorize(caller, ACTIONS.networkPropertiesGet);
    const showPrivate = options.all && caller.can('admin', {});
    const rows = (await this.reads.properties()).filter((row) => showPrivate || !row.private);
    if (!options.detail) return rows.map((row) => ({ property: row.name }));
    const networks = await this.reads.networks();
    const valuesOf = (name: string): string[] => [
      ...new Set(networks.flatMap((network) => (typeof network[name] === 'string' ? [network[name]] : []))),
    ];
    return rows.map((row) => ({ property: row.name, private: row.private, values: valuesOf(row.name).sort() }));
  }

  /** The property as it is now (after a privacy change is projected). */
  async property(name: string): Promise<NetworkPropertyRow> {
    const row = await this.reads.property(name);
    if (row === null) throw propertyNotFound(name);
    return row;
  }

  /** Admin only (the policy first): the segment's stream and its registry entries. */
  async networkHistory(caller: Caller, networkId: string): Promise<HistoryEntry[]> {
    return this.history.kindResource(caller, 'network', networkId, { action: ACTIONS.networkHistory, missing: networkNotFound });
  }
}
