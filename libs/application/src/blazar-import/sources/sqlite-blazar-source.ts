import Database from 'better-sqlite3';
import type { BlazarRow, BlazarSource, BlazarTable } from '../blazar-source.port.js';

/** Blazar's database in a SQLite file (as Blazar's own tests and small deployments keep it), opened read-only. */
export class SqliteBlazarSource implements BlazarSource {
  readonly notes = [];

  private constructor(private readonly db: Database.Database) {}

  static open(file: string): SqliteBlazarSource {
    return new SqliteBlazarSource(new Database(file, { readonly: true, fileMustExist: true }));
  }

  private hasTable(table: string): boolean {
    return this.db.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(table) !== undefined;
  }

  revisions(): Promise<readonly string[] | null> {
    if (!this.hasTable('alembic_version')) return Promise.resolve(null);
    const rows = this.db.prepare('select version_num from alembic_version').all() as { version_num: string }[];
    return Promise.resolve(rows.map((row) => row.version_num));
  }

  rows(table: BlazarTable): Promise<readonly BlazarRow[]> {
    if (!this.hasTable(table)) return Promise.resolve([]);
    return Promise.resolve(this.db.prepare(`select * from "${table}"`).all() as BlazarRow[]);
  }

  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }
}
