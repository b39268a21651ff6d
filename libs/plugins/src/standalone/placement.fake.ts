import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { statementCache } from './statement-cache.js';

export interface ResourceProvider {
  readonly uuid: string;
  readonly name: string;
  readonly parentProviderUuid: string | null;
}

/** Placement's inventory record of one resource class on one provider. */
export interface Inventory {
  readonly total: number;
  readonly reserved: number;
  readonly minUnit: number;
  readonly maxUnit: number;
  readonly stepSize: number;
  readonly allocationRatio: number;
}

interface ProviderRow {
  readonly uuid: string;
  readonly name: string;
  readonly parent_provider_uuid: string | null;
}

interface InventoryRow extends ProviderRow {
  readonly total: number;
  readonly reserved: number;
  readonly min_unit: number;
  readonly max_unit: number;
  readonly step_size: number;
  readonly allocation_ratio: number;
}

const toProvider = (row: ProviderRow): ResourceProvider => ({
  uuid: row.uuid,
  name: row.name,
  parentProviderUuid: row.parent_provider_uuid,
});

const toInventory = (row: InventoryRow): Inventory => ({
  total: row.total,
  reserved: row.reserved,
  minUnit: row.min_unit,
  maxUnit: row.max_unit,
  stepSize: row.step_size,
  allocationRatio: row.allocation_ratio,
});

const sameInventory = (a: Inventory, b: Inventory): boolean =>
  a.total === b.total &&
  a.reserved === b.reserved &&
  a.minUnit === b.minUnit &&
  a.maxUnit === b.maxUnit &&
  a.stepSize === b.stepSize &&
  a.allocationRatio === b.allocationRatio;

/**
 * FAKE of the Placement calls Blazar makes: resource providers (compute nodes and their `blazar_<host>`
 * children), custom resource classes and per-provider inventories. Like Placement it refuses an
 * inventory of an unknown class and the deletion of a class some inventory still uses.
 */
export class FakePlacement {
  private readonly sql: (sql: string) => Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.sql = statementCache(db);
  }

  getResourceProvider(name: string): ResourceProvider | null {
    const row = this.sql('SELECT uuid, name, parent_provider_uuid FROM resource_providers WHERE name = ?').get(name) as
      ProviderRow | undefined;
    return row === undefined ? null : toProvider(row);
  }

  /** Creates the provider unless one of that name exists; either way returns it. */
  ensureResourceProvider(
    name: string,
    parentProviderUuid: string | null,
  ): { readonly provider: ResourceProvider; readonly created: boolean } {
    return this.db
      .transaction(() => {
        const existing = this.getResourceProvider(name);
        if (existing !== null) return { provider: existing, created: false };
        const provider = { uuid: randomUUID(), name, parentProviderUuid };
        this.sql('INSERT INTO resource_providers (uuid, name, parent_provider_uuid) VALUES (?, ?, ?)').run(
          provider.uuid,
          name,
          parentProviderUuid,
        );
        return { provider, created: true };
      })
      .immediate();
  }

  /** The compute node's provider, named after its hypervisor: created on first use, as nova-compute would have. */
  computeNodeProvider(hypervisorHostname: string): ResourceProvider {
    return this.ensureResourceProvider(hypervisorHostname, null).provider;
  }

  /** Creates the custom resource class unless it exists; true when created. */
  ensureResourceClass(name: string): boolean {
    return this.sql('INSERT INTO resource_classes (name) VALUES (?) ON CONFLICT DO NOTHING').run(name).changes > 0;
  }

  resourceClassExists(name: string): boolean {
    return this.sql('SELECT 1 FROM resource_classes WHERE name = ?').get(name) !== undefined;
  }

  /** Deletes an unused resource class; false when it does not exist. */
  deleteResourceClass(name: string): boolean {
    return this.db
      .transaction(() => {
        if (this.providersWithInventory(name).length > 0) throw new Error(`Resource class ${name} is in use in inventory`);
        return this.sql('DELETE FROM resource_classes WHERE name = ?').run(name).changes > 0;
      })
      .immediate();
  }

  /** Sets the provider's inventory of the class; true when it changed. */
  setInventory(providerUuid: string, resourceClass: string, inventory: Inventory): boolean {
    return this.db
      .transaction(() => {
        if (!this.resourceClassExists(resourceClass)) throw new Error(`No such resource class ${resourceClass}`);
        if (this.sql('SELECT 1 FROM resource_providers WHERE uuid = ?').get(providerUuid) === undefined) {
          throw new Error(`No resource provider with uuid ${providerUuid} found`);
        }
        const current = this.getInventory(providerUuid, resourceClass);
        if (current !== null && sameInventory(current, inventory)) return false;
        const sql = `INSERT INTO inventories (resource_provider_uuid, resource_class, total, reserved, min_unit, max_unit, step_size, allocation_ratio)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (resource_provider_uuid, resource_class) DO UPDATE SET total = excluded.total,
          reserved = excluded.reserved, min_unit = excluded.min_unit, max_unit = excluded.max_unit, step_size = excluded.step_size,
          allocation_ratio = excluded.allocation_ratio`;
        const { total, reserved, minUnit, maxUnit, stepSize, allocationRatio } = inventory;
        this.sql(sql).run(providerUuid, resourceClass, total, reserved, minUnit, maxUnit, stepSize, allocationRatio);
        return true;
      })
      .immediate();
  }

  getInventory(providerUuid: string, resourceClass: string): Inventory | null {
    const sql = 'SELECT * FROM inventories WHERE resource_provider_uuid = ? AND resource_class = ?';
    const row = this.sql(sql).get(providerUuid, resourceClass) as InventoryRow | undefined;
    return row === undefined ? null : toInventory(row);
  }

  /** Deletes the provider's inventory of the class; false when it had none. */
  deleteInventory(providerUuid: string, resourceClass: string): boolean {
    return (
      this.sql('DELETE FROM inventories WHERE resource_provider_uuid = ? AND resource_class = ?').run(providerUuid, resourceClass).changes >
      0
    );
  }

  /** Every provider with an inventory of the class, by provider name. */
  providersWithInventory(resourceClass: string): { readonly provider: ResourceProvider; readonly inventory: Inventory }[] {
    const sql = `SELECT p.uuid, p.name, p.parent_provider_uuid, i.total, i.reserved, i.min_unit, i.max_unit, i.step_size, i.allocation_ratio
      FROM inventories i JOIN resource_providers p ON p.uuid = i.resource_provider_uuid WHERE i.resource_class = ? ORDER BY p.name`;
    const rows = this.sql(sql).all(resourceClass) as InventoryRow[];
    return rows.map((row) => ({ provider: toProvider(row), inventory: toInventory(row) }));
  }
}
