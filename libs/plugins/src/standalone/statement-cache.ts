import type Database from 'better-sqlite3';

/**
 * The connection's statement for `sql`, prepared on first use: the fakes run the same few statements
 * for every lease phase, and preparing one costs more than running it.
 */
export const statementCache = (db: Database.Database): ((sql: string) => Database.Statement) => {
  const prepared = new Map<string, Database.Statement>();
  return (sql) => {
    const cached = prepared.get(sql);
    if (cached !== undefined) return cached;
    const statement = db.prepare(sql);
    prepared.set(sql, statement);
    return statement;
  };
};
