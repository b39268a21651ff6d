import { BetterSqlitePlatform, JsonProperty, raw } from '@mikro-orm/better-sqlite';
import { PostgreSqlPlatform } from '@mikro-orm/postgresql';
import { describe, expect, it } from 'vitest';
import { type BindingRules, QueryBinder } from './bound-query.js';

const sqlite = new BetterSqlitePlatform();
const postgres = new PostgreSqlPlatform();
const SQLITE: BindingRules = { date: (value) => value.getTime(), boolean: (value) => (value ? 1 : 0), parenthesiseNestedArrays: true };
const POSTGRES: BindingRules = { date: (value) => value.toISOString(), boolean: (value) => value, parenthesiseNestedArrays: false };

const bindSqlite = (sql: string, params: readonly unknown[]) => QueryBinder.bind(sqlite, SQLITE, sql, params);

describe('QueryBinder', () => {
  it('binds every value and writes only placeholders into the text', () => {
    const bound = bindSqlite('insert into `t` (`a`, `b`, `c`) values (?, ?, ?)', ["x'); drop table t; --", 'a\u0000b', 3]);
    expect(bound).toEqual({ sql: 'insert into `t` (`a`, `b`, `c`) values (?, ?, ?)', bindings: ["x'); drop table t; --", 'a\u0000b', 3] });
  });

  it('writes identifiers (`??`) quoted into the text, as formatQuery does', () => {
    expect(bindSqlite('select ?? from ?? where ?? = ?', ['name', 'lh_leases', 'id', 'x'])).toEqual({
      sql: 'select `name` from `lh_leases` where `id` = ?',
      bindings: ['x'],
    });
    expect(QueryBinder.bind(postgres, POSTGRES, '??.?? = ?', ['t', 'c', 1]).sql).toBe('"t"."c" = ?');
  });

  it('keeps an escaped question mark literal: escaped again for knex when there are bindings, plain without', () => {
    expect(bindSqlite("select '\\?' as q, ? as v", ['a?'])).toEqual({ sql: "select '\\?' as q, ? as v", bindings: ['a?'] });
    expect(bindSqlite("select '\\?' as q", [null]).sql).toBe("select '?' as q");
    expect(bindSqlite("select '\\?' as q", [])).toEqual({ sql: "select '\\?' as q", bindings: [] });
  });

  it('separates a placeholder from a literal question mark or a backslash just before it', () => {
    for (const [text, expected] of [
      ['x ?', 'x \\? ?'],
      ['x \\', 'x \\ ?'],
    ] as const) {
      const binder = new QueryBinder(sqlite, SQLITE);
      binder.addSql(text, []);
      binder.addSql('?', [1]);
      expect(binder.result()).toEqual({ sql: expected, bindings: [1] });
    }
  });

  it('inlines a raw fragment SQL and binds its own parameters, recursively', () => {
    const fragment = raw('lower(?) || ?', ['ABC', raw('upper(?)', ['def'])]);
    expect(bindSqlite('select ? as v, ? as w', [fragment, 'x'])).toEqual({
      sql: 'select lower(?) || upper(?) as v, ? as w',
      bindings: ['ABC', 'def', 'x'],
    });
  });

  it('expands an array into a list, nested arrays as sqlstring or PostgreSQL escape write them', () => {
    expect(bindSqlite('where id in (?)', [['a', 'b', 3]])).toEqual({ sql: 'where id in (?, ?, ?)', bindings: ['a', 'b', 3] });
    expect(
      bindSqlite('values ?', [
        [
          [1, 2],
          [3, 4],
        ],
      ]).sql,
    ).toBe('values (?, ?), (?, ?)');
    expect(
      QueryBinder.bind(postgres, POSTGRES, 'values ?', [
        [
          [1, 2],
          [3, 4],
        ],
      ]).sql,
    ).toBe('values ?, ?, ?, ?');
  });

  it('binds a plain object, or a value marked as JSON, as its JSON text', () => {
    const marked = Object.assign([1, 'x'], { [JsonProperty]: {} });
    expect(bindSqlite('? ?', [{ a: "'", b: [null] }, marked]).bindings).toEqual(['{"a":"\'","b":[null]}', '[1,"x"]']);
  });

  it('converts scalars per database: booleans, dates, bigints, buffers, null and undefined', () => {
    const date = new Date('2030-01-02T03:04:05.678Z');
    const bytes = new Uint8Array([0, 1, 255]);
    const params = [true, false, date, 12345678901234567890n, Buffer.from([7]), bytes, null, undefined];
    expect(bindSqlite('?,?,?,?,?,?,?,?', params).bindings).toEqual([
      1,
      0,
      date.getTime(),
      '12345678901234567890',
      Buffer.from([7]),
      Buffer.from([0, 1, 255]),
      null,
      null,
    ]);
    expect(QueryBinder.bind(postgres, POSTGRES, '?,?,?', [true, date, null]).bindings).toEqual([true, '2030-01-02T03:04:05.678Z', null]);
  });

  it('writes an integer row count after limit or offset into the text, as knex skipBinding does, and binds anything else there', () => {
    expect(bindSqlite('select * from t where id = ? limit ? offset ?', ['x', 1, 20])).toEqual({
      sql: 'select * from t where id = ? limit 1 offset 20',
      bindings: ['x'],
    });
    expect(bindSqlite('select * from t limit ? offset ?', [1.5, '3'])).toEqual({
      sql: 'select * from t limit ? offset ?',
      bindings: [1.5, '3'],
    });
    expect(bindSqlite('select ? as limit_value', [1])).toEqual({ sql: 'select ? as limit_value', bindings: [1] });
  });

  it('writes a value with toSqlString() into the text, as sqlstring does, and binds any other object as its string', () => {
    const sqlValue = new (class {
      toSqlString(): string {
        return 'CURRENT_TIMESTAMP';
      }
    })();
    const other = new URL('https://example.org/?a=1');
    expect(bindSqlite('? ?', [sqlValue, other])).toEqual({ sql: 'CURRENT_TIMESTAMP ?', bindings: ['https://example.org/?a=1'] });
  });

  it('reads the text exactly as formatQuery: the character after a value is never a placeholder, missing values are null', () => {
    for (const [sql, params] of [
      ['??', ['t']],
      ['?', [1]],
      ['x = ? and y = ?', [1]],
      ['(?)?', [1, 2]],
      ['? ?? \\? ?', [1, 't', 2]],
    ] as const) {
      const bound = bindSqlite(sql, params);
      let n = 0;
      const rendered = bound.sql.replace(/\\\?|\?/g, (match) => (match === '?' ? sqlite.quoteValue(bound.bindings[n++]) : '?'));
      expect(rendered).toBe(sqlite.formatQuery(sql, params));
    }
  });
});
