import pg from 'pg';
import type { BlazarRow, BlazarSource, BlazarTable } from '../blazar-source.port.js';

const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;

const builtin: (oid: number, format?: 'text' | 'binary') => unknown = pg.types.getTypeParser;

/** Timestamps as the text PostgreSQL sends: Blazar's are naive UTC, which pg would otherwise read in the local zone. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMP || oid === TIMESTAMPTZ ? (value: string) => value : builtin(oid, format)) as typeof pg.types.getTypeParser,
};

/** Blazar's database on PostgreSQL (the `public` schema, as Blazar's migrations make it), read in one read-only transaction. */
export class PostgresBlazarSource implements BlazarSource {
  readonly notes = [];

  private constructor(private readonly client: pg.Client) {}

  static async open(url: string): Promise<PostgresBlazarSource> {
    const client = new pg.Client({ connectionString: url, types });
    await client.connect();
    try {
      await client.query('begin transaction isolation level repeatable read read only');
    } catch (error) {
      await client.end();
      throw error;
    }
    return new PostgresBlazarSource(client);
  }

  private async hasTable(table: string): Promise<boolean> {
    const result = await this.client.query<{ found: string | null }>('select to_regclass($1)::text as found', [table]);
    return result.rows[0]?.found !== null && result.rows[0]?.found !== undefined;
  }

  async revisions(): Promise<readonly string[] | null> {
    if (!(await this.hasTable('alembic_version'))) return null;
    return (await this.client.query<{ version_num: string }>('select version_num from alembic_version')).rows.map((row) => row.version_num);
  }

  async rows(table: BlazarTable): Promise<readonly BlazarRow[]> {
    if (!(await this.hasTable(table))) return [];
    return (await this.client.query<BlazarRow>(`select * from "${table}"`)).rows;
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}
