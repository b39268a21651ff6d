import {
  AbstractSqlConnection,
  AbstractSqlDriver,
  type AnyEntity,
  BetterSqliteConnection,
  BetterSqliteKnexDialect,
  BetterSqlitePlatform,
  type Configuration,
  type EntityData,
  type Knex,
  type LoggingOptions,
  type QueryResult,
  type Transaction,
  Utils,
} from '@mikro-orm/better-sqlite';
import { PostgreSqlConnection, PostgreSqlPlatform } from '@mikro-orm/postgresql';
import { type BindingRules, QueryBinder } from './bound-query.js';

/*
 * MikroORM 6 writes every parameter into the SQL text (AbstractSqlConnection.execute calls
 * platform.formatQuery and runs the result without bindings): a value that the database's SQL parser
 * cannot read, a NUL in SQLite for one, fails the statement. These drivers are MikroORM's own for
 * better-sqlite3 and PostgreSQL with one difference: their connections send the values as bindings.
 */

type ExecuteResult = QueryResult | EntityData<AnyEntity> | EntityData<AnyEntity>[];
// a mixin's base must be typed `new (...args: any[])` (TS2545)
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the mixin rule above
type SqlConnectionClass = abstract new (...args: any[]) => AbstractSqlConnection;

const sendsBindings = <Base extends SqlConnectionClass>(Base: Base, rules: BindingRules) => {
  abstract class BindingConnection extends Base {
    /** AbstractSqlConnection.execute, with the values bound instead of inlined. */
    override async execute<T extends ExecuteResult = EntityData<AnyEntity>[]>(
      queryOrKnex: string | Knex.QueryBuilder | Knex.Raw,
      params: unknown[] = [],
      method: 'all' | 'get' | 'run' = 'all',
      ctx?: Transaction,
      loggerContext?: LoggingOptions,
    ): Promise<T> {
      await this.ensureConnection();
      let sql: string;
      if (Utils.isObject<Knex.QueryBuilder | Knex.Raw>(queryOrKnex)) {
        ctx ??= (queryOrKnex as { client?: { transacting?: unknown } }).client?.transacting ? (queryOrKnex as Transaction) : undefined;
        const compiled = queryOrKnex.toSQL();
        sql = compiled.sql;
        params = (compiled.bindings ?? []) as unknown[];
      } else {
        sql = queryOrKnex;
      }
      sql = this.config.get('onQuery')(sql, params);
      const bound = QueryBinder.bind(this.platform, rules, sql, params);
      return this.executeQuery(
        this.loggedSql(sql, params, loggerContext),
        async () => {
          const knex = this.getKnex();
          const query = bound.bindings.length === 0 ? knex.raw(bound.sql) : knex.raw(bound.sql, bound.bindings as Knex.RawBinding[]);
          if (ctx) query.transacting(ctx as Knex.Transaction);
          return this.transformRawResult<T>(await query, method);
        },
        { query: sql, params, ...loggerContext },
      );
    }

    /** AbstractSqlConnection.getSql (private there): what the query log shows. */
    private loggedSql(sql: string, params: unknown[], context?: LoggingOptions): string {
      const logger = this.config.getLogger();
      if (!logger.isEnabled('query', context)) return sql;
      if (logger.isEnabled('query-params', context)) return this.platform.formatQuery(sql, params);
      return (this.getKnex().client as { positionBindings(sql: string): string }).positionBindings(sql);
    }
  }
  return BindingConnection;
};

const SQLITE_RULES: BindingRules = {
  // BaseSqlitePlatform.quoteValue writes a Date as its epoch milliseconds, sqlstring a boolean as true/false (1/0)
  date: (value) => value.getTime(),
  boolean: (value) => (value ? 1 : 0),
  parenthesiseNestedArrays: true,
};

const POSTGRESQL_RULES: BindingRules = {
  date: (value, platform) => (platform as PostgreSqlPlatform).formatDate(value),
  boolean: (value) => value,
  parenthesiseNestedArrays: false,
};

/**
 * knex passes `\?` (a literal question mark in a statement with bindings) to better-sqlite3 as is;
 * PostgreSQL's dialect turns it into `?`, and so does this one.
 */
class BetterSqliteBindingDialect extends BetterSqliteKnexDialect {
  positionBindings(sql: string): string {
    return sql.replaceAll('\\?', '?');
  }
}

export class BindingBetterSqliteConnection extends sendsBindings(BetterSqliteConnection, SQLITE_RULES) {
  override createKnex(): void {
    this.client = this.createKnexClient(BetterSqliteBindingDialect as unknown as string);
    this.connected = true;
  }
}

export class BindingPostgreSqlConnection extends sendsBindings(PostgreSqlConnection, POSTGRESQL_RULES) {}

/** MikroORM's BetterSqliteDriver, with a connection that binds values. */
export class BindingBetterSqliteDriver extends AbstractSqlDriver<BindingBetterSqliteConnection, BetterSqlitePlatform> {
  constructor(config: Configuration) {
    super(config, new BetterSqlitePlatform(), BindingBetterSqliteConnection, ['knex', 'better-sqlite3']);
  }
}

/** MikroORM's PostgreSqlDriver, with a connection that binds values. */
export class BindingPostgreSqlDriver extends AbstractSqlDriver<BindingPostgreSqlConnection, PostgreSqlPlatform> {
  constructor(config: Configuration) {
    super(config, new PostgreSqlPlatform(), BindingPostgreSqlConnection, ['knex', 'pg']);
  }
}
