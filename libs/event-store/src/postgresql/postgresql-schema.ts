import type pg from 'pg';

/** A PostgreSQL identifier we create: lower-case letters, digits and underscores only, so it is never quoted wrong. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export const assertSchemaName = (schema: string): string => {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`event store schema must match ${SCHEMA_NAME.source}, got '${schema}'`);
  return schema;
};

/** The digest a text key is indexed by: any length fits (a b-tree entry holds at most 2704 bytes). */
export const keyOf = (schema: string, expression: string): string => `${schema}.key_of(${expression})`;

/**
 * The same tables as the SQLite store. Positions are BIGINT allocated by the store itself (never a
 * sequence: a sequence hands out numbers in call order, and transactions commit in another). The
 * text keys and the JSON columns are TEXT, holding what stored-text.ts and JSON.stringify make of
 * any string (PostgreSQL text cannot hold U+0000; JSON text escapes it). Keys are unique and indexed
 * through their SHA-256 digests, so an id of any length is stored; queries compare the text as well.
 */
const schemaSql = (schema: string): string => `
  CREATE SCHEMA IF NOT EXISTS ${schema};
  -- convert_to is only STABLE (it depends on the database encoding, which never changes under a store)
  CREATE OR REPLACE FUNCTION ${schema}.key_of(value text) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT sha256(convert_to(value, 'UTF8')) $$;
  CREATE TABLE IF NOT EXISTS ${schema}.events (
    position BIGINT PRIMARY KEY,
    event_id TEXT NOT NULL,
    stream_id TEXT NOT NULL,
    category TEXT NOT NULL,
    revision INTEGER NOT NULL,
    type TEXT NOT NULL,
    schema_version INTEGER NOT NULL DEFAULT 1,
    data TEXT NOT NULL,
    metadata TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    event_key BYTEA GENERATED ALWAYS AS (${keyOf(schema, 'event_id')}) STORED UNIQUE,
    stream_key BYTEA GENERATED ALWAYS AS (${keyOf(schema, 'stream_id')}) STORED,
    category_key BYTEA GENERATED ALWAYS AS (${keyOf(schema, 'category')}) STORED,
    type_key BYTEA GENERATED ALWAYS AS (${keyOf(schema, 'type')}) STORED,
    UNIQUE (stream_key, revision)
  );
  CREATE INDEX IF NOT EXISTS events_category_position ON ${schema}.events (category_key, position);
  CREATE INDEX IF NOT EXISTS events_type_position ON ${schema}.events (type_key, position);
  CREATE INDEX IF NOT EXISTS events_recorded_at ON ${schema}.events (recorded_at);
  CREATE TABLE IF NOT EXISTS ${schema}.streams (
    stream_id TEXT NOT NULL,
    stream_key BYTEA GENERATED ALWAYS AS (${keyOf(schema, 'stream_id')}) STORED PRIMARY KEY,
    revision INTEGER NOT NULL
  );
`;

/**
 * Runs DDL once, whoever starts first: processes opening a fresh database at the same moment would
 * otherwise collide on CREATE ... IF NOT EXISTS (which is not atomic in PostgreSQL).
 */
export const runDdlOnce = async (pool: pg.Pool, lockName: string, ddl: string): Promise<void> => {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockName]);
    await client.query(ddl);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
};

/**
 * The lock every DDL in `schema` takes: the event store's tables and the snapshots' (which also
 * create the schema) are made by processes starting together, and CREATE SCHEMA races too.
 */
export const schemaLock = (schema: string): string => `leasehold-schema:${schema}`;

/** The event store's tables in `schema`, made once (runDdlOnce). */
export const ensureSchema = (pool: pg.Pool, schema: string): Promise<void> => runDdlOnce(pool, schemaLock(schema), schemaSql(schema));
