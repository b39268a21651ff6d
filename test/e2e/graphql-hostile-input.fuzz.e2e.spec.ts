/**
 * Generated hostile requests against /graphql (fast-check, seeded): every mutation and query with
 * hostile variables (strings with control characters or lone surrogates, huge or non-integral
 * numbers, wrong types, deep nesting), hostile documents (random text, deep selections, huge
 * literals) and raw bodies that are not JSON or not UTF-8. Whatever comes in: no 5xx, no internal
 * error in `errors`, a refused operation leaves the event log as it was, and what an accepted one
 * appends holds no string the input rules refuse (as hostile-input.fuzz.e2e.spec.ts for REST).
 * Replay a failure with LEASEHOLD_FUZZ_SEED=<seed>; LEASEHOLD_FUZZ_RUNS sets the number of requests.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textProblem } from '#api/http/input-rules.js';
import { blazarDate } from '../helpers/http.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

const SEED = process.env.LEASEHOLD_FUZZ_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.LEASEHOLD_FUZZ_SEED);
const RUNS = Number(process.env.LEASEHOLD_FUZZ_RUNS ?? 400);

const OPERATIONS = [
  'mutation($input: CreateLeaseInput!) { createLease(input: $input) { id } }',
  'mutation($id: ID!, $input: UpdateLeaseInput!) { updateLease(id: $id, input: $input) { id } }',
  'mutation($id: ID!) { deleteLease(id: $id) }',
  'mutation($input: CreateHostInput!) { createHost(input: $input) { id } }',
  'mutation($id: ID!, $input: UpdateHostInput!) { updateHost(id: $id, input: $input) { id } }',
  'mutation($id: ID!) { deleteHost(id: $id) }',
  'query($id: ID!) { lease(id: $id) { id reservations { allocations { resource_id } } history { type } } }',
  'query($id: ID!) { host(id: $id) { id allocations { lease_id } } }',
  'query($filter: LeaseFilter, $first: Int, $after: String) { leases(filter: $filter, first: $first, after: $after) { edges { node { id } } } }',
  'query($filter: HostFilter) { hosts(filter: $filter) { id } }',
  'query($request: AvailabilityInput!) { availability(request: $request) { windows { start_date } } }',
  'query($start: String!, $end: String!, $project_id: String, $group_by: String) { usage(start: $start, end: $end, project_id: $project_id, group_by: $group_by) { lines } }',
];

const loneSurrogate = fc
  .tuple(fc.string({ maxLength: 5 }), fc.integer({ min: 0xd800, max: 0xdfff }))
  .map(([before, unit]) => `${before}${String.fromCharCode(unit)}`);

const hostileString = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'x\u0000y',
    '\u001b[2J',
    '\t',
    '\n',
    '\u007f',
    '\u0085',
    '\u202e',
    '',
    ' ',
    'now',
    '2030-02-30 10:00',
    '__proto__',
    '-1',
    '1e308',
    '9'.repeat(30),
    'a'.repeat(5000),
    '["==", "$gpu", "\\u0000"]',
    'physical:host',
    'virtual:floatingip',
  ),
  loneSurrogate,
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ maxLength: 30 }),
);

const hostileNumber = fc.oneof(
  fc.constantFrom(-1, 0, 1.5, 1e308, 2 ** 31, 2 ** 53 + 2, 100_000),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const nested = (depth: number): unknown => (depth === 0 ? 'bottom' : { a: nested(depth - 1) });

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }),
  fc.integer({ min: 10, max: 40 }).map(nested),
  fc.array(hostileString, { maxLength: 3 }),
);

/** A valid-looking value for each variable, then one field (or the whole variable) made hostile. */
const reservation = (extra: Record<string, unknown>) => ({ resource_type: 'physical:host', min: 1, max: 1, ...extra });
const variablesFor = (operation: string): fc.Arbitrary<Record<string, unknown>> => {
  const window = { start_date: blazarDate(60 * 24 * 900), end_date: blazarDate(60 * 24 * 900 + 60) };
  const base: Record<string, unknown> = {
    input: operation.includes('Host')
      ? { name: 'fuzz-host', capabilities: [{ key: 'k', value: 'v' }] }
      : { name: 'fuzz', ...window, reservations: [reservation({})] },
    id: operation.includes('Host') || operation.includes('host(') ? '1' : '00000000-0000-4000-8000-000000000000',
    filter: {},
    request: { duration: '60', reservations: [reservation({})] },
    start: '2030-01-01 00:00',
    end: '2030-02-01 00:00',
  };
  const keys = [...operation.matchAll(/\$(\w+):/g)].map((match) => match[1] as string);
  const fields = [
    'name',
    'start_date',
    'end_date',
    'reservations',
    'capabilities',
    'vcpus',
    'status',
    'project_id',
    'starts_after',
    'duration',
    'min',
    'resource_type',
    'key',
  ];
  return fc
    .tuple(fc.constantFrom(...keys), fc.option(fc.constantFrom(...fields), { nil: null }), hostileValue)
    .map(([key, field, value]) => {
      const variables = Object.fromEntries(keys.map((name) => [name, base[name]]));
      const current = variables[key];
      if (field === null || current === null || typeof current !== 'object') return { ...variables, [key]: value };
      return { ...variables, [key]: { ...current, [field]: value } };
    });
};

const hostileDocument = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.integer({ min: 50, max: 3000 }).map((depth) => `{ ${'leases { edges { node { '.repeat(depth)}id${' } } }'.repeat(depth)} }`),
  fc.constantFrom(
    '{ leases(first: 99999999999999999999) { edges { cursor } } }',
    '{ leases(first: -1) { edges { cursor } } }',
    '{ lease(id: "\\u0000") { id } }',
    `{ lease(id: "${'x'.repeat(100_000)}") { id } }`,
    'query { __typename ' + 'a: __typename '.repeat(5000) + '}',
    'subscription { leaseEvents(leaseId: "x") { position } }',
    'mutation { deleteHost(id: 1e308) }',
  ),
);

const rawBody = fc.constantFrom<string | Buffer>(
  '{',
  'null',
  '[]',
  '{"query": 5}',
  '{"query": "{ leases { edges { cursor } } }", "variables": "x"}',
  Buffer.from('{"query":"\xc3\x28"}', 'latin1'),
  Buffer.from([0xff, 0xfe, 0x7b, 0x00]),
);

interface Hostile {
  readonly body: string | Buffer;
  readonly contentType: string;
}

const hostileRequest: fc.Arbitrary<Hostile> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .constantFrom(...OPERATIONS)
      .chain((query) =>
        variablesFor(query).map((variables) => ({ body: JSON.stringify({ query, variables }), contentType: 'application/json' })),
      ),
  },
  { weight: 2, arbitrary: hostileDocument.map((query) => ({ body: JSON.stringify({ query }), contentType: 'application/json' })) },
  { weight: 1, arbitrary: rawBody.map((body) => ({ body, contentType: 'application/json' })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/graphql')
      .map((contentType) => ({ body: '{ leases { edges { cursor } } }', contentType })),
  },
);

const forbiddenIn = (value: unknown, at = '$'): string | null => {
  if (typeof value === 'string') return textProblem(value, /properties$|cpuInfo$|cpu_info$/i.test(at)) === null ? null : at;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, item] of Object.entries(value)) {
    if (textProblem(key) !== null) return `${at} key`;
    const found = forbiddenIn(item, `${at}.${key}`);
    if (found !== null) return found;
  }
  return null;
};

let system: RunningSystem;

beforeAll(async () => {
  // no reactor: a lease the fuzz created starting now would have it append while a refused request is checked for writes
  system = await startSystem({ apps: ['api', 'projector'] });
  const created = await fetch(`${system.url}/v1/os-hosts`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'fuzz-existing', vcpus: 4 }),
  });
  expect(created.status).toBe(201);
});

afterAll(async () => {
  await system?.stop();
});

describe(`hostile input against /graphql (seed ${SEED}, ${RUNS} requests)`, () => {
  it('no 5xx; no internal error; a refused operation writes nothing; nothing accepted carries what the rules refuse', async () => {
    await fc.assert(
      fc.asyncProperty(hostileRequest, async (request) => {
        const db = new Database(join(system.dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
        const headOf = (): number => (db.prepare('SELECT COALESCE(MAX(position), 0) AS head FROM events').get() as { head: number }).head;
        try {
          const before = headOf();
          const response = await fetch(`${system.url}/graphql`, {
            method: 'POST',
            headers: { 'Content-Type': request.contentType },
            body: request.body,
          });
          const text = await response.text();
          const what = `${response.status} ${text.slice(0, 300)} <- ${String(request.body).slice(0, 300)}`;
          expect(response.status, what).toBeLessThan(500);
          const answer = JSON.parse(text) as {
            errors?: { extensions?: { code?: string } }[];
            data?: Record<string, unknown> | null;
            error_code?: number;
          };
          for (const error of answer.errors ?? []) expect(error.extensions?.code, what).not.toBe('INTERNAL_SERVER_ERROR');
          const accepted = answer.data != null && Object.values(answer.data).some((value) => value !== null);
          const appended = db.prepare('SELECT type, data FROM events WHERE position > ? ORDER BY position').all(before) as {
            type: string;
            data: string;
          }[];
          if (!accepted) expect(appended, what).toEqual([]);
          for (const event of appended) expect(forbiddenIn(JSON.parse(event.data)), `${what}: ${event.type}`).toBeNull();
        } finally {
          db.close();
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  }, 600_000);
});
