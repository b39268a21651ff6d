import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { statementCache } from './statement-cache.js';

/** Nova's aggregate that holds reservable hosts while no reservation uses them ([nova]aggregate_freepool_name). */
export const FREEPOOL = 'freepool';

export interface Aggregate {
  /** Nova's integer id, assigned at creation and never reused. */
  readonly id: number;
  readonly name: string;
  readonly availabilityZone: string | null;
  readonly metadata: Readonly<Record<string, string>>;
}

export interface AggregateSpec {
  readonly availabilityZone: string | null;
  readonly metadata: Readonly<Record<string, string>>;
}

/** Nova's flavor fields that Blazar sets (flavors.create). */
export interface FlavorSpec {
  readonly id: string;
  readonly name: string;
  readonly vcpus: number;
  readonly ram: number;
  readonly disk: number;
  readonly ephemeral: number;
  readonly isPublic: boolean;
}

export interface NovaFlavor extends FlavorSpec {
  readonly extraSpecs: Readonly<Record<string, string>>;
}

export type ServerGroupPolicy = 'affinity' | 'anti-affinity';

export interface ServerGroupSpec {
  readonly name: string;
  readonly projectId: string;
  readonly policy: ServerGroupPolicy;
}

export interface ServerGroup extends ServerGroupSpec {
  readonly id: string;
}

interface AggregateRow {
  readonly id: number;
  readonly name: string;
  readonly availability_zone: string | null;
  readonly metadata: string;
}

interface FlavorRow {
  readonly id: string;
  readonly name: string;
  readonly vcpus: number;
  readonly ram: number;
  readonly disk: number;
  readonly ephemeral: number;
  readonly is_public: number;
  readonly extra_specs: string;
}

interface ServerGroupRow {
  readonly id: string;
  readonly name: string;
  readonly project_id: string;
  readonly policy: ServerGroupPolicy;
}

export class AggregateNotFoundError extends Error {
  constructor(readonly aggregate: string) {
    super(`Aggregate ${aggregate} could not be found`);
    this.name = 'AggregateNotFoundError';
  }
}

export class FlavorNotFoundError extends Error {
  constructor(readonly flavorId: string) {
    super(`Flavor ${flavorId} could not be found`);
    this.name = 'FlavorNotFoundError';
  }
}

const toFlavor = (row: FlavorRow): NovaFlavor => ({
  id: row.id,
  name: row.name,
  vcpus: row.vcpus,
  ram: row.ram,
  disk: row.disk,
  ephemeral: row.ephemeral,
  isPublic: row.is_public === 1,
  extraSpecs: JSON.parse(row.extra_specs) as Record<string, string>,
});

const toServerGroup = (row: ServerGroupRow): ServerGroup => ({ id: row.id, name: row.name, projectId: row.project_id, policy: row.policy });

/**
 * FAKE of the Nova calls Blazar makes: host aggregates, flavors with extra specs and project access,
 * and server groups. Like Nova it refuses to delete an aggregate that still has hosts and to grant
 * access to a public flavor. Part of the StandaloneCloud; no servers exist, so none are ever listed.
 */
export class FakeNova {
  private readonly sql: (sql: string) => Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.sql = statementCache(db);
  }

  /** Creates the aggregate unless it exists; true when created. An existing aggregate is left as it is. */
  ensureAggregate(name: string, spec: AggregateSpec): boolean {
    const result = this.sql(
      'INSERT INTO aggregates (name, availability_zone, metadata) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING',
    ).run(name, spec.availabilityZone, JSON.stringify(spec.metadata));
    return result.changes > 0;
  }

  /** Deletes an empty aggregate; false when it does not exist. */
  deleteAggregate(name: string): boolean {
    return this.db
      .transaction(() => {
        if (this.membersOf(name).length > 0) throw new Error(`Cannot delete aggregate ${name}: it still has hosts`);
        return this.sql('DELETE FROM aggregates WHERE name = ?').run(name).changes > 0;
      })
      .immediate();
  }

  getAggregate(name: string): Aggregate | null {
    const sql = 'SELECT id, name, availability_zone, metadata FROM aggregates WHERE name = ?';
    const row = this.sql(sql).get(name) as AggregateRow | undefined;
    if (row === undefined) return null;
    return {
      id: row.id,
      name: row.name,
      availabilityZone: row.availability_zone,
      metadata: JSON.parse(row.metadata) as Record<string, string>,
    };
  }

  /** Adds the host; true when added. The freepool is created on first use; other aggregates must exist. */
  addHost(aggregate: string, host: string): boolean {
    return this.db
      .transaction(() => {
        if (aggregate === FREEPOOL) this.ensureAggregate(FREEPOOL, { availabilityZone: null, metadata: {} });
        else if (this.getAggregate(aggregate) === null) throw new AggregateNotFoundError(aggregate);
        const sql = 'INSERT INTO aggregate_hosts (aggregate, host) VALUES (?, ?) ON CONFLICT DO NOTHING';
        return this.sql(sql).run(aggregate, host).changes > 0;
      })
      .immediate();
  }

  /** Removes the host; false when it was not a member. */
  removeHost(aggregate: string, host: string): boolean {
    return this.sql('DELETE FROM aggregate_hosts WHERE aggregate = ? AND host = ?').run(aggregate, host).changes > 0;
  }

  membersOf(aggregate: string): string[] {
    return this.sql('SELECT host FROM aggregate_hosts WHERE aggregate = ? ORDER BY host').pluck().all(aggregate) as string[];
  }

  aggregatesOf(host: string): string[] {
    return this.sql('SELECT aggregate FROM aggregate_hosts WHERE host = ? ORDER BY aggregate').pluck().all(host) as string[];
  }

  /** Hosts in no aggregate count as free: standalone mode has no registration step that would add them. */
  inFreepool(host: string): boolean {
    const aggregates = this.aggregatesOf(host);
    return aggregates.length === 0 || aggregates.includes(FREEPOOL);
  }

  /** Creates the flavor (no extra specs yet) unless its id exists; true when created. Nova refuses a taken name. */
  createFlavor(spec: FlavorSpec): boolean {
    return this.db
      .transaction(() => {
        if (this.getFlavor(spec.id) !== null) return false;
        const sql = 'INSERT INTO flavors (id, name, vcpus, ram, disk, ephemeral, is_public, extra_specs) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';
        this.sql(sql).run(spec.id, spec.name, spec.vcpus, spec.ram, spec.disk, spec.ephemeral, spec.isPublic ? 1 : 0, '{}');
        return true;
      })
      .immediate();
  }

  getFlavor(id: string): NovaFlavor | null {
    const row = this.sql('SELECT * FROM flavors WHERE id = ?').get(id) as FlavorRow | undefined;
    return row === undefined ? null : toFlavor(row);
  }

  /** Nova's set_keys: merges the specs into the flavor's; true when any value changed. */
  setFlavorExtraSpecs(id: string, specs: Readonly<Record<string, string>>): boolean {
    return this.db
      .transaction(() => {
        const flavor = this.getFlavor(id);
        if (flavor === null) throw new FlavorNotFoundError(id);
        if (Object.entries(specs).every(([key, value]) => flavor.extraSpecs[key] === value)) return false;
        this.sql('UPDATE flavors SET extra_specs = ? WHERE id = ?').run(JSON.stringify({ ...flavor.extraSpecs, ...specs }), id);
        return true;
      })
      .immediate();
  }

  /** Deletes the flavor and its access list; false when it does not exist. */
  deleteFlavor(id: string): boolean {
    return this.db
      .transaction(() => {
        this.sql('DELETE FROM flavor_access WHERE flavor_id = ?').run(id);
        return this.sql('DELETE FROM flavors WHERE id = ?').run(id).changes > 0;
      })
      .immediate();
  }

  /** Grants a project access to a private flavor; true when granted. */
  addFlavorAccess(id: string, projectId: string): boolean {
    return this.db
      .transaction(() => {
        const flavor = this.getFlavor(id);
        if (flavor === null) throw new FlavorNotFoundError(id);
        if (flavor.isPublic) throw new Error(`Can not add access to a public flavor ${id}`);
        return (
          this.sql('INSERT INTO flavor_access (flavor_id, project_id) VALUES (?, ?) ON CONFLICT DO NOTHING').run(id, projectId).changes > 0
        );
      })
      .immediate();
  }

  /** Revokes a project's access; false when it had none (or the flavor is gone). */
  removeFlavorAccess(id: string, projectId: string): boolean {
    return this.sql('DELETE FROM flavor_access WHERE flavor_id = ? AND project_id = ?').run(id, projectId).changes > 0;
  }

  flavorAccess(id: string): string[] {
    return this.sql('SELECT project_id FROM flavor_access WHERE flavor_id = ? ORDER BY project_id').pluck().all(id) as string[];
  }

  /**
   * The project's server group of that name, created (with a new uuid) unless one exists. Nova does
   * not make names unique, so callers look before they create; here looking and creating are one step.
   */
  ensureServerGroup(spec: ServerGroupSpec): { readonly group: ServerGroup; readonly created: boolean } {
    return this.db
      .transaction(() => {
        const existing = this.findServerGroup(spec.projectId, spec.name);
        if (existing !== null) return { group: existing, created: false };
        const group = { id: randomUUID(), ...spec };
        this.sql('INSERT INTO server_groups (id, name, project_id, policy) VALUES (?, ?, ?, ?)').run(
          group.id,
          spec.name,
          spec.projectId,
          spec.policy,
        );
        return { group, created: true };
      })
      .immediate();
  }

  findServerGroup(projectId: string, name: string): ServerGroup | null {
    const sql = 'SELECT id, name, project_id, policy FROM server_groups WHERE project_id = ? AND name = ? ORDER BY id LIMIT 1';
    const row = this.sql(sql).get(projectId, name) as ServerGroupRow | undefined;
    return row === undefined ? null : toServerGroup(row);
  }

  /** Deletes the server group; false when it does not exist. */
  deleteServerGroup(id: string): boolean {
    return this.sql('DELETE FROM server_groups WHERE id = ?').run(id).changes > 0;
  }
}
