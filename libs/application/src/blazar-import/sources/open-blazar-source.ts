import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { invalid } from '#domain/index.js';
import type { BlazarSource } from '../blazar-source.port.js';

/** SQLAlchemy's URL forms, as Blazar's [database]connection names them: `engine[+driver]://...`. */
const SCHEME = /^([a-z]+)(\+[a-z0-9_]+)?:\/\//;

/** `sqlite:///relative.db` and `sqlite:////absolute.db`, as SQLAlchemy reads them. */
const sqliteFile = (url: string): string => {
  const path = url.replace(/^sqlite:\/\/\//, '');
  if (path === '' || url === path) throw invalid('BAD_DATABASE_URL', `A SQLite database URL is sqlite:///<file>, got ${url}`);
  const file = isAbsolute(path) ? path : resolve(path);
  if (!existsSync(file)) throw invalid('BAD_DATABASE_URL', `No SQLite database at ${file}`);
  return file;
};

/**
 * The adapter for the database a URL names, its driver loaded only then. MariaDB/MySQL needs a driver
 * Leasehold does not ship yet (mysql2): a MysqlBlazarSource is one more adapter of this port.
 */
export const openBlazarSource = async (url: string): Promise<BlazarSource> => {
  const [, engine, driver] = SCHEME.exec(url) ?? [];
  switch (engine) {
    case 'sqlite': {
      const { SqliteBlazarSource } = await import('./sqlite-blazar-source.js');
      return SqliteBlazarSource.open(sqliteFile(url));
    }
    case 'postgres':
    case 'postgresql': {
      const { PostgresBlazarSource } = await import('./postgresql-blazar-source.js');
      return PostgresBlazarSource.open(driver === undefined ? url : url.replace(driver, ''));
    }
    case 'mysql':
    case 'mariadb':
      throw invalid(
        'DATABASE_NOT_SUPPORTED',
        'MariaDB/MySQL sources are not supported yet: copy the database to PostgreSQL or SQLite, or import from one',
      );
    default:
      throw invalid(
        'BAD_DATABASE_URL',
        'The Blazar database URL must start with sqlite:///, postgresql:// (or postgresql+<driver>://) or mysql://',
      );
  }
};
