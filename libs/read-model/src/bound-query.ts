import { JsonProperty, type Platform, Utils } from '@mikro-orm/core';

/** How one database takes the values that MikroORM's `formatQuery` would have written as literals. */
export interface BindingRules {
  readonly date: (value: Date, platform: Platform) => unknown;
  readonly boolean: (value: boolean) => unknown;
  /** sqlstring (SQLite) writes a nested array as a parenthesised list, PostgreSQL's escape flattens it. */
  readonly parenthesiseNestedArrays: boolean;
}

/** SQL text in knex's raw convention (`?` a binding, `\?` a literal question mark) and its bindings. */
export interface BoundQuery {
  readonly sql: string;
  readonly bindings: readonly unknown[];
}

const PLACEHOLDER = Symbol('placeholder');
type Piece = string | typeof PLACEHOLDER;

interface KnexRaw {
  toSQL(): { sql: string; bindings?: readonly unknown[] };
}

interface SqlStringValue {
  toSqlString(): string;
}

const hasSqlString = (value: object): value is SqlStringValue => typeof (value as Partial<SqlStringValue>).toSqlString === 'function';

/**
 * Turns MikroORM's (sql, params) into SQL text plus bindings, reading the text exactly as
 * `Platform.formatQuery` does (`?` a value, `??` an identifier, `\?` a literal question mark) and
 * converting every value as `quoteValue` would, but as a binding instead of a literal (a Date in a
 * list too is bound as the database's rules say, where sqlstring wrote a local time). Only what comes
 * from code goes into the text: identifiers, raw fragments' SQL, `toSqlString()`, integer row counts.
 */
export class QueryBinder {
  private readonly pieces: Piece[] = [];
  private readonly bindings: unknown[] = [];

  constructor(
    private readonly platform: Platform,
    private readonly rules: BindingRules,
  ) {}

  static bind(platform: Platform, rules: BindingRules, sql: string, params: readonly unknown[]): BoundQuery {
    const binder = new QueryBinder(platform, rules);
    binder.addSql(sql, params);
    return binder.result();
  }

  /** The same scan as Platform.formatQuery, quirks included (the character after a value is never a placeholder). */
  addSql(sql: string, params: readonly unknown[]): void {
    if (params.length === 0) {
      this.pieces.push(sql);
      return;
    }
    let next = 0;
    let pos = 0;
    if (sql.startsWith('??')) {
      this.addIdentifier(params[next++]);
      pos = 2;
    } else if (sql.startsWith('?')) {
      this.addValue(params[next++]);
      pos = 1;
    }
    while (pos < sql.length) {
      const idx = sql.indexOf('?', pos + 1);
      if (idx === -1) {
        this.pieces.push(sql.substring(pos));
        break;
      }
      if (sql.substring(idx - 1, idx + 1) === '\\?') {
        this.pieces.push(`${sql.substring(pos, idx - 1)}?`);
        pos = idx + 1;
      } else if (sql.substring(idx, idx + 2) === '??') {
        this.pieces.push(sql.substring(pos, idx));
        this.addIdentifier(params[next++]);
        pos = idx + 2;
      } else {
        this.pieces.push(sql.substring(pos, idx));
        this.addValue(params[next++]);
        pos = idx + 1;
      }
    }
  }

  result(): BoundQuery {
    if (this.bindings.length === 0) return { sql: this.pieces.join(''), bindings: [] };
    const parts: string[] = [];
    let last = '';
    for (const piece of this.pieces) {
      // `??` would read as an identifier and `\?` as a literal: keep a placeholder apart from both
      const part = piece !== PLACEHOLDER ? piece.replaceAll('?', '\\?') : last === '?' || last === '\\' ? ' ?' : '?';
      parts.push(part);
      if (part !== '') last = part.charAt(part.length - 1);
    }
    return { sql: parts.join(''), bindings: this.bindings };
  }

  private addIdentifier(id: unknown): void {
    this.pieces.push(this.platform.quoteIdentifier(String(id)));
  }

  private addValue(value: unknown): void {
    if (Utils.isRawSql(value)) {
      this.addSql(value.sql, value.params ?? []);
    } else if (this.platform.isRaw(value)) {
      const { sql, bindings = [] } = (value as KnexRaw).toSQL();
      this.addSql(bindings.length === 0 ? sql.replaceAll('\\?', '?') : sql, bindings);
    } else if (Utils.isPlainObject(value) || (value as Record<symbol, unknown> | null | undefined)?.[JsonProperty] !== undefined) {
      this.bind(JSON.stringify(value));
    } else if (Array.isArray(value)) {
      this.addList(value);
    } else {
      this.addScalar(value);
    }
  }

  private addList(values: readonly unknown[]): void {
    values.forEach((value, index) => {
      if (index > 0) this.pieces.push(', ');
      if (!Array.isArray(value)) this.addValue(value);
      else if (!this.rules.parenthesiseNestedArrays) this.addList(value);
      else {
        this.pieces.push('(');
        this.addList(value);
        this.pieces.push(')');
      }
    });
  }

  private addScalar(value: unknown): void {
    if (this.isRowCount(value)) this.pieces.push(String(value));
    else if (value === null || value === undefined) this.bind(null);
    else if (typeof value === 'boolean') this.bind(this.rules.boolean(value));
    else if (typeof value === 'string' || typeof value === 'number') this.bind(value);
    // both dialects write a bigint as a quoted string literal
    else if (typeof value === 'bigint') this.bind(String(value));
    else if (value instanceof Date) this.bind(this.rules.date(value, this.platform));
    else if (Buffer.isBuffer(value)) this.bind(value);
    else if (ArrayBuffer.isView(value)) this.bind(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    else if (typeof value === 'object' && hasSqlString(value)) this.pieces.push(value.toSqlString());
    // anything else is text, as the inlining (sqlstring) made of it
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    else this.bind(String(value));
  }

  /**
   * An integer right after knex's `limit ` or `offset ` goes into the text, as knex's own `skipBinding`
   * option does: digits cannot change a statement, and SQLite runs `limit 1` markedly faster than
   * `limit ?` (the projector's every findOne).
   */
  private isRowCount(value: unknown): value is number {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) return false;
    const before = this.pieces.at(-1);
    return typeof before === 'string' && (before.endsWith(' limit ') || before.endsWith(' offset '));
  }

  private bind(value: unknown): void {
    this.pieces.push(PLACEHOLDER);
    this.bindings.push(value);
  }
}
