/** The tables of Blazar's database the import reads (models.py), in the order they are read. */
export const BLAZAR_TABLES = [
  'resource_properties',
  'computehosts',
  'computehost_extra_capabilities',
  'floatingips',
  'leases',
  'events',
  'reservations',
  'computehost_reservations',
  'instance_reservations',
  'floatingip_reservations',
  'required_floatingips',
  'computehost_allocations',
  'floatingip_allocations',
] as const;

export type BlazarTable = (typeof BLAZAR_TABLES)[number];

export type { BlazarRow } from '#plugins/blazar/blazar-values.js';
import type { BlazarRow } from '#plugins/blazar/blazar-values.js';
import type { ImportNote } from './blazar-import.model.js';

export type BlazarRows = Readonly<Record<BlazarTable, readonly BlazarRow[]>>;

/**
 * A Blazar database, read-only: one adapter per engine (SQLite, PostgreSQL, MariaDB/MySQL). Adapters only fetch
 * rows; every conversion is the mapping's, so the engines cannot disagree.
 */
export interface BlazarSource {
  /** What opening the database left the operator to know (a URL option the import ignores). */
  readonly notes: readonly ImportNote[];
  /** What `alembic_version` holds (one revision for a database Blazar's own migrations made), or null without the table. */
  revisions(): Promise<readonly string[] | null>;
  rows(table: BlazarTable): Promise<readonly BlazarRow[]>;
  close(): Promise<void>;
}

export const readBlazarRows = async (source: BlazarSource): Promise<BlazarRows> => {
  const entries: [BlazarTable, readonly BlazarRow[]][] = [];
  for (const table of BLAZAR_TABLES) entries.push([table, await source.rows(table)]);
  return Object.fromEntries(entries) as Record<BlazarTable, readonly BlazarRow[]>;
};
