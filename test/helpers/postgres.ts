import { createRequire } from 'node:module';

/** The part of node-postgres' Client the tests use (no @types/pg here; `pg` comes with @mikro-orm/postgresql). */
interface PgClient {
  connect(): Promise<void>;
  query<Row>(text: string, values?: readonly unknown[]): Promise<{ readonly rows: Row[] }>;
  end(): Promise<void>;
}

const { Client } = createRequire(import.meta.url)('pg') as { Client: new (options: { connectionString: string }) => PgClient };

/** Runs one parameterized query straight against PostgreSQL, outside Leasehold's own code. */
export const queryPostgres = async <Row>(url: string, text: string, values: readonly unknown[] = []): Promise<Row[]> => {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
};
