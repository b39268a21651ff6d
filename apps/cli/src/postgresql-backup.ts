/**
 * A log on PostgreSQL is backed up and restored by PostgreSQL's own tools: pg_dump reads every table of
 * its schemas in one snapshot while the service writes. These are the exact commands for the configured
 * LEASEHOLD_EVENT_STORE_URL; the password is never printed (pg_dump reads PGPASSWORD or ~/.pgpass).
 */
import { KURRENTDB_URL } from '#event-store/kurrentdb/kurrentdb-url.js';

const SHELL_SAFE = /^[\w@%+=:,./-]+$/;

const shellQuoted = (text: string): string => (SHELL_SAFE.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`);

/** The ledger's schema (the URL's `schema`, default `leasehold`) and its audit log's beside it, as openEventStore names them. */
const schemasOf = (url: URL): readonly string[] => {
  const schema = url.searchParams.get('schema') ?? 'leasehold';
  return [schema, `${schema}_audit`];
};

/** The URL libpq understands: without our own `schema` parameter, and without the password. */
const connectionOf = (url: URL): string => {
  const connection = new URL(url.toString());
  connection.searchParams.delete('schema');
  connection.password = '';
  return connection.toString();
};

export const pgDumpCommand = (eventStoreUrl: string, file: string): string => {
  const url = new URL(eventStoreUrl);
  const schemas = schemasOf(url).map((schema) => `--schema=${schema}`);
  return ['pg_dump', '--format=custom', ...schemas, `--file=${shellQuoted(file)}`, shellQuoted(connectionOf(url))].join(' ');
};

/** Into an empty database: pg_restore creates the schemas, their tables, functions and sequences, in one transaction. */
export const pgRestoreCommand = (eventStoreUrl: string, file: string): string =>
  [
    'pg_restore',
    '--exit-on-error',
    '--single-transaction',
    `--dbname=${shellQuoted(connectionOf(new URL(eventStoreUrl)))}`,
    shellQuoted(file),
  ].join(' ');

/** The log is not in the data folder: the command cannot copy it, and says what to run instead (exit 1). */
export class ExternalLogError extends Error {
  override readonly name = 'ExternalLogError';
}

/** Refuses a backup or a restore of a log on PostgreSQL or KurrentDB, naming the database's own tool; the embedded store passes. */
export const refuseExternalLog = (env: NodeJS.ProcessEnv, operation: 'backup' | 'restore', file: string): void => {
  const url = env.LEASEHOLD_EVENT_STORE_URL ?? '';
  if (url === '') return;
  if (KURRENTDB_URL.test(url)) {
    throw new ExternalLogError(`the event log is on KurrentDB (LEASEHOLD_EVENT_STORE_URL): use KurrentDB's own ${operation}`);
  }
  const [how, command] =
    operation === 'backup'
      ? ['back it up with pg_dump, which reads every table in one snapshot while the service writes', pgDumpCommand(url, file)]
      : ['restore it with pg_restore into the database LEASEHOLD_EVENT_STORE_URL names, which must be empty', pgRestoreCommand(url, file)];
  throw new ExternalLogError(
    `the event log is on PostgreSQL (LEASEHOLD_EVENT_STORE_URL): ${how} (the password from PGPASSWORD or ~/.pgpass):\n  ${command}`,
  );
};
