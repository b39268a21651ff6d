import { knex } from '@mikro-orm/postgresql';

export interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

const onServer = async (serverUrl: string, statement: string, name: string): Promise<void> => {
  const admin = knex({ client: 'pg', connection: serverUrl });
  try {
    await admin.raw(statement, [name]);
  } finally {
    await admin.destroy();
  }
};

/**
 * A new empty database on the PostgreSQL server of `serverUrl` (LEASEHOLD_TEST_PG_URL), so that a
 * test file owns its tables and never meets another file's; drop() removes it.
 */
export const createTestDatabase = async (serverUrl: string, prefix: string): Promise<TestDatabase> => {
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}`;
  await onServer(serverUrl, 'create database ??', name);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => onServer(serverUrl, 'drop database if exists ?? with (force)', name) };
};
