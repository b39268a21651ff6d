import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { statementCache } from './statement-cache.js';

export interface FloatingIpSpec {
  readonly floatingNetworkId: string;
  readonly floatingIpAddress: string;
  readonly projectId: string;
  readonly tags: readonly string[];
}

export interface NeutronFloatingIp extends FloatingIpSpec {
  readonly id: string;
  readonly portId: string | null;
}

interface FloatingIpRow {
  readonly id: string;
  readonly floating_ip_address: string;
  readonly floating_network_id: string;
  readonly project_id: string;
  readonly port_id: string | null;
  readonly tags: string;
}

const toFloatingIp = (row: FloatingIpRow): NeutronFloatingIp => ({
  id: row.id,
  floatingNetworkId: row.floating_network_id,
  floatingIpAddress: row.floating_ip_address,
  projectId: row.project_id,
  portId: row.port_id,
  tags: JSON.parse(row.tags) as string[],
});

const COLUMNS = 'id, floating_ip_address, floating_network_id, project_id, port_id, tags';

/** Neutron's provider attributes of a network. */
export interface ProviderSegment {
  readonly networkType: string;
  readonly physicalNetwork: string | null;
  readonly segmentId: number | null;
}

export interface NetworkSpec extends ProviderSegment {
  readonly name: string;
  readonly projectId: string;
  readonly tags: readonly string[];
}

export interface NeutronNetwork extends NetworkSpec {
  readonly id: string;
}

interface NetworkRow {
  readonly id: string;
  readonly name: string;
  readonly project_id: string;
  readonly network_type: string;
  readonly physical_network: string | null;
  readonly segment_id: number | null;
  readonly tags: string;
}

const toNetwork = (row: NetworkRow): NeutronNetwork => ({
  id: row.id,
  name: row.name,
  projectId: row.project_id,
  networkType: row.network_type,
  physicalNetwork: row.physical_network,
  segmentId: row.segment_id,
  tags: JSON.parse(row.tags) as string[],
});

const NETWORK_COLUMNS = 'id, name, project_id, network_type, physical_network, segment_id, tags';

const segmentKey = (segment: ProviderSegment): string => JSON.stringify([segment.networkType, segment.physicalNetwork, segment.segmentId]);

/**
 * FAKE of the Neutron floating-IP and provider-network calls Blazar makes. Like Neutron, one address is allocated
 * at most once per external network and a segment carries at most one network. There are no ports or subnets here,
 * so an address is only associated when a test says so and a network always goes in one step.
 */
export class FakeNeutron {
  private readonly sql: (sql: string) => Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.sql = statementCache(db);
  }

  /**
   * Allocates the address (with a new uuid, tags set at creation) unless it is allocated on that
   * network already; returns whichever floating IP holds the address.
   */
  ensureFloatingIp(spec: FloatingIpSpec): { readonly floatingIp: NeutronFloatingIp; readonly created: boolean } {
    return this.db
      .transaction(() => {
        const existing = this.findFloatingIp(spec.floatingNetworkId, spec.floatingIpAddress);
        if (existing !== null) return { floatingIp: existing, created: false };
        const floatingIp = { id: randomUUID(), ...spec, tags: [...spec.tags], portId: null };
        this.sql(`INSERT INTO floating_ips (${COLUMNS}) VALUES (?, ?, ?, ?, NULL, ?)`).run(
          floatingIp.id,
          spec.floatingIpAddress,
          spec.floatingNetworkId,
          spec.projectId,
          JSON.stringify(spec.tags),
        );
        return { floatingIp, created: true };
      })
      .immediate();
  }

  findFloatingIp(floatingNetworkId: string, floatingIpAddress: string): NeutronFloatingIp | null {
    const sql = `SELECT ${COLUMNS} FROM floating_ips WHERE floating_network_id = ? AND floating_ip_address = ?`;
    const row = this.sql(sql).get(floatingNetworkId, floatingIpAddress) as FloatingIpRow | undefined;
    return row === undefined ? null : toFloatingIp(row);
  }

  /** Neutron's `GET /floatingips?tags=<tag>`, by address. */
  floatingIpsTagged(tag: string): NeutronFloatingIp[] {
    const sql = `SELECT ${COLUMNS} FROM floating_ips WHERE EXISTS (SELECT 1 FROM json_each(tags) WHERE value = ?) ORDER BY floating_ip_address`;
    return (this.sql(sql).all(tag) as FloatingIpRow[]).map(toFloatingIp);
  }

  /** Points the floating IP at a port (or none); true when it changed. */
  setPort(id: string, portId: string | null): boolean {
    return this.sql('UPDATE floating_ips SET port_id = ? WHERE id = ? AND port_id IS NOT ?').run(portId, id, portId).changes > 0;
  }

  /** Releases the floating IP; false when it does not exist. */
  deleteFloatingIp(id: string): boolean {
    return this.sql('DELETE FROM floating_ips WHERE id = ?').run(id).changes > 0;
  }

  /** Creates the network (with a new uuid, tags set at creation) unless one is on its segment already; returns the one there. */
  ensureNetwork(spec: NetworkSpec): { readonly network: NeutronNetwork; readonly created: boolean } {
    return this.db
      .transaction(() => {
        const existing = this.networkOnSegment(spec);
        if (existing !== null) return { network: existing, created: false };
        const network = { id: randomUUID(), ...spec, tags: [...spec.tags] };
        this.sql(`INSERT INTO networks (${NETWORK_COLUMNS}, segment) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(
          network.id,
          spec.name,
          spec.projectId,
          spec.networkType,
          spec.physicalNetwork,
          spec.segmentId,
          JSON.stringify(spec.tags),
          segmentKey(spec),
        );
        return { network, created: true };
      })
      .immediate();
  }

  /** Neutron's `GET /networks?provider:network_type=...` as admin. */
  networkOnSegment(segment: ProviderSegment): NeutronNetwork | null {
    const row = this.sql(`SELECT ${NETWORK_COLUMNS} FROM networks WHERE segment = ?`).get(segmentKey(segment)) as NetworkRow | undefined;
    return row === undefined ? null : toNetwork(row);
  }

  /** Neutron's `GET /networks?tags=<tag>`, by id. */
  networksTagged(tag: string): NeutronNetwork[] {
    const sql = `SELECT ${NETWORK_COLUMNS} FROM networks WHERE EXISTS (SELECT 1 FROM json_each(tags) WHERE value = ?) ORDER BY id`;
    return (this.sql(sql).all(tag) as NetworkRow[]).map(toNetwork);
  }

  /** Deletes the network; false when it does not exist. */
  deleteNetwork(id: string): boolean {
    return this.sql('DELETE FROM networks WHERE id = ?').run(id).changes > 0;
  }
}
