import { invalid } from '#domain/index.js';
import type { ImportNote } from '../blazar-import.model.js';

export interface MysqlConnection {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /** PyMySQL's `unix_socket` query option: the server's socket instead of TCP. */
  readonly socketPath: string | null;
  /** Query options the URL names that the import has no use for, each said to the operator. */
  readonly notes: readonly ImportNote[];
}

const DEFAULT_PORT = 3306;

/**
 * Options SQLAlchemy's MySQL drivers take that change nothing for a read: `charset` is how Blazar writes (the
 * import always reads in utf8mb4, which holds every charset Blazar's tables may use).
 */
const HARMLESS = new Set(['charset', 'use_unicode']);

const parsed = (raw: string): URL => {
  try {
    return new URL(raw);
  } catch {
    throw invalid('BAD_DATABASE_URL', 'A MariaDB/MySQL database URL is mysql://user:password@host[:port]/database');
  }
};

/** `mysql://user:password@host[:port]/database[?options]`, the `+driver` part already gone, as SQLAlchemy reads it. */
export const mysqlConnection = (raw: string): MysqlConnection => {
  const url = parsed(raw);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (database === '' || database.includes('/')) {
    throw invalid('BAD_DATABASE_URL', 'A MariaDB/MySQL database URL names its database: mysql://user:password@host[:port]/blazar');
  }
  const notes: ImportNote[] = [];
  for (const option of new Set(url.searchParams.keys())) {
    if (option === 'unix_socket' || HARMLESS.has(option)) continue;
    notes.push({ message: `the database URL's option ${option} is not used by the import: ignored` });
  }
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1') || 'localhost',
    port: url.port === '' ? DEFAULT_PORT : Number(url.port),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database,
    socketPath: url.searchParams.get('unix_socket'),
    notes,
  };
};
