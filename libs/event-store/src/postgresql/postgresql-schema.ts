import type pg from 'pg';

/** A PostgreSQL identifier we create: lower-case letters, digits and underscores only, so it is never quoted wrong. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export const assertSchemaName = (schema: string): string => {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`event store schema must match ${SCHEMA_NAME.source}, got '${schema}'`);
  return schema;
};

/** The digest a text key is indexed by: any length fits (a b-tree entry holds at most 2704 bytes). */
export const keyOf = (schema: string, expression: string): string => `${schema}.key_of(${expression})`;

/** How append_events receives an expected revision: a revision (-1: no stream) or one of these. */
export const EXPECTED_STREAM_EXISTS = -2;
export const EXPECTED_ANY = -3;

/**
 * One append in one round trip (the store's lock is held for the server's work only, not for the
 * client's round trips): takes the store's lock, then, each statement reading a snapshot taken after
 * it (a VOLATILE PL/pgSQL function's statements do, under READ COMMITTED), finds which of the event
 * ids are stored, the streams' revisions and the head. Writes only when no id is stored and every
 * expected revision holds: the events at the positions after the head, the streams' new revisions,
 * and the notification; else writes nothing and returns what it found, for the caller to name the
 * replay or the conflict. Revisions and categories come per request; `event_requests` gives each
 * event's request (1-based), in the append's order.
 */
const appendFunctionSql = (schema: string): string => `
  CREATE OR REPLACE FUNCTION ${schema}.append_events(
    lock_name text, channel text,
    request_streams text[], request_categories text[], request_expected int8[],
    event_ids text[], event_requests int4[], event_types text[], event_versions int4[], event_data text[], event_metadata text[], recorded text
  ) RETURNS TABLE (written boolean, head int8, revisions int4[], stored_ids text[], stored_streams text[], stored_positions int8[])
  -- every lookup is by a unique key, so one generic plan per statement serves every call (not planned
  -- again at each append), and an index probe is right at any size: a plan made while the tables were
  -- small must not go on scanning them as they grow
  LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $fn$
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtext(lock_name));
    SELECT array_agg(e.event_id ORDER BY e.position), array_agg(e.stream_id ORDER BY e.position), array_agg(e.position ORDER BY e.position)
      INTO stored_ids, stored_streams, stored_positions
      FROM ${schema}.events e
      WHERE e.event_key IN (SELECT ${keyOf(schema, 'id')} FROM unnest(event_ids) AS id) AND e.event_id = ANY(event_ids);
    SELECT array_agg(COALESCE((SELECT s.revision FROM ${schema}.streams s WHERE s.stream_key = ${keyOf(schema, 'r.stream_id')} AND s.stream_id = r.stream_id), -1) ORDER BY r.ordinal)
      INTO revisions
      FROM unnest(request_streams) WITH ORDINALITY AS r(stream_id, ordinal);
    SELECT COALESCE(MAX(e.position), 0) INTO head FROM ${schema}.events e;
    written := stored_ids IS NULL AND NOT EXISTS (
      SELECT 1 FROM unnest(request_expected, revisions) AS r(expected, actual)
      WHERE NOT (r.expected = ${EXPECTED_ANY} OR (r.expected = ${EXPECTED_STREAM_EXISTS} AND r.actual >= 0) OR r.expected = r.actual)
    );
    IF written AND cardinality(event_ids) > 0 THEN
      INSERT INTO ${schema}.events (position, event_id, stream_id, category, revision, type, schema_version, data, metadata, recorded_at)
        SELECT head + e.ordinal, e.id, request_streams[e.request], request_categories[e.request],
               revisions[e.request] + row_number() OVER (PARTITION BY e.request ORDER BY e.ordinal), e.type, e.version, e.data, e.metadata, recorded
        FROM unnest(event_ids, event_requests, event_types, event_versions, event_data, event_metadata)
          WITH ORDINALITY AS e(id, request, type, version, data, metadata, ordinal);
      INSERT INTO ${schema}.streams (stream_id, revision)
        SELECT request_streams[e.request], revisions[e.request] + count(*)::int4 FROM unnest(event_requests) AS e(request) GROUP BY e.request
        ON CONFLICT (stream_key) DO UPDATE SET revision = excluded.revision;
      PERFORM pg_notify(channel, (head + cardinality(event_ids))::text);
    END IF;
    RETURN NEXT;
  END
  $fn$;
`;

/**
 * The same tables as the SQLite store. Positions are BIGINT allocated by the store itself (never a
 * sequence: a sequence hands out numbers in call order, and transactions commit in another). The
 * text keys and the JSON columns are TEXT, holding what stored-text.ts and JSON.stringify make of
 * any string (PostgreSQL text cannot hold U+0000; JSON text escapes it). Keys are unique and indexed
 * through their SHA-256 digests, so an id of any length is stored; queries compare the text as well.
 */
const schemaSql = (schema: string): string => `
  CREATE SCHEMA IF NOT EXISTS ${schema};
  -- convert_to is only STABLE (it depends on the database encoding, which never changes under a store).
  -- PL/pgSQL, not SQL: an SQL function that cannot be inlined (this one, being IMMUTABLE over a STABLE
  -- call) is parsed and planned again in every statement that calls it, a PL/pgSQL one once a session
  CREATE OR REPLACE FUNCTION ${schema}.key_of(value text) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$ BEGIN RETURN sha256(convert_to(value, 'UTF8')); END $$;
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
${appendFunctionSql(schema)}`;

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
