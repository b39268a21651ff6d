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

/** The adapter for the database a URL names, its driver loaded only then. */
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
    case 'mariadb': {
      const { MysqlBlazarSource } = await import('./mysql-blazar-source.js');
      return MysqlBlazarSource.open(driver === undefined ? url : url.replace(driver, ''));
    }
    default:
      throw invalid(
        'BAD_DATABASE_URL',
        'The Blazar database URL must start with sqlite:///, postgresql:// or mysql:// (or postgresql+<driver>://, mysql+<driver>://)',
      );
  }
};
