import mysql from 'mysql2/promise';
import type { ImportNote } from '../blazar-import.model.js';
import type { BlazarRow, BlazarSource, BlazarTable } from '../blazar-source.port.js';
import { mysqlConnection } from './mysql-url.js';

/**
 * Blazar's database on MariaDB or MySQL, read in one read-only, consistent-snapshot transaction. Blazar's DATETIMEs
 * hold naive UTC: read as the text the server sends (`dateStrings`), never as a Date in this process's zone, and the
 * session in UTC, so neither the server's nor this process's time zone can shift them.
 */
export class MysqlBlazarSource implements BlazarSource {
  private constructor(
    private readonly connection: mysql.Connection,
    readonly notes: readonly ImportNote[],
  ) {}

  static async open(url: string): Promise<MysqlBlazarSource> {
    const { socketPath, notes, ...where } = mysqlConnection(url);
    const connection = await mysql.createConnection({
      ...where,
      ...(socketPath === null ? {} : { socketPath }),
      charset: 'utf8mb4',
      dateStrings: true,
      timezone: 'Z',
    });
    try {
      await connection.query("set time_zone = '+00:00'");
      await connection.query('set transaction isolation level repeatable read');
      await connection.query('start transaction with consistent snapshot, read only');
    } catch (error) {
      await connection.end();
      throw error;
    }
    return new MysqlBlazarSource(connection, notes);
  }

  private async hasTable(table: string): Promise<boolean> {
    const [rows] = await this.connection.query<mysql.RowDataPacket[]>(
      'select 1 from information_schema.tables where table_schema = database() and table_name = ?',
      [table],
    );
    return rows.length > 0;
  }

  async revisions(): Promise<readonly string[] | null> {
    if (!(await this.hasTable('alembic_version'))) return null;
    const [rows] = await this.connection.query<mysql.RowDataPacket[]>('select version_num from alembic_version');
    return rows.map((row) => String(row.version_num));
  }

  async rows(table: BlazarTable): Promise<readonly BlazarRow[]> {
    if (!(await this.hasTable(table))) return [];
    const [rows] = await this.connection.query<mysql.RowDataPacket[]>(`select * from \`${table}\``);
    return rows;
  }

  async close(): Promise<void> {
    await this.connection.end();
  }
}
