/**
 * Generated hostile requests against every operation `/openapi.json` lists (fast-check, seeded):
 * bodies mutated field by field from a valid one (hostile strings, wrong types from the schema,
 * huge or non-integral numbers, deep nesting, odd keys), random JSON, raw bytes that are not JSON or
 * not UTF-8, hostile path segments and query parameters. Whatever comes in: no 5xx, every 4xx in
 * Blazar's error body (and no control, bidi or other format character echoed in it), a refused
 * request leaves the event log exactly as it was, and what an accepted one appends holds no string
 * the input rules refuse.
 * Replay a failure with LEASEHOLD_FUZZ_SEED=<seed>; LEASEHOLD_FUZZ_RUNS sets the number of requests.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textProblem } from '#api/http/input-rules.js';
import { dayAt, pinnedHost } from '../helpers/api-fixtures.js';
import { api, floatingIpReservation, instanceReservation } from '../helpers/http.js';
import { describeBody } from '../helpers/lease-client.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

const SEED = process.env.LEASEHOLD_FUZZ_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.LEASEHOLD_FUZZ_SEED);
const RUNS = Number(process.env.LEASEHOLD_FUZZ_RUNS ?? 1000);

const NET = '7d3c1b2a-4e5f-4a6b-8c9d-0e1f2a3b4c5d';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

type Schema = Record<string, any>;

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly pathParameters: readonly string[];
  readonly queryParameters: readonly string[];
  /** The request body schema's name (`CreateLeaseDto`...), null for operations without a body. */
  readonly body: string | null;
}

interface HostileRequest {
  readonly method: string;
  readonly url: string;
  readonly contentType: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Buffer | undefined;
}

/** The event log's size and head, read beside the running system. */
const ledgerHead = (dataDir: string): { readonly count: number; readonly head: number } => {
  const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT COUNT(*) AS count, COALESCE(MAX(position), 0) AS head FROM events').get() as { count: number; head: number };
  } finally {
    db.close();
  }
};

/** The events appended after `position`. */
const eventsAfter = (dataDir: string, position: number): { readonly type: string; readonly data: string }[] => {
  const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT type, data FROM events WHERE position > ? ORDER BY position').all(position) as {
      type: string;
      data: string;
    }[];
  } finally {
    db.close();
  }
};

/** Event fields holding JSON text, where JSON's whitespace may stay (their wire names and the events' own). */
const JSON_TEXT_KEYS = new Set([
  'hypervisor_properties',
  'resource_properties',
  'cpu_info',
  'hypervisorProperties',
  'resourceProperties',
  'cpuInfo',
]);

/** The first key or string in an event's data that the input rules would refuse, with where it is. */
const forbiddenIn = (value: unknown, at = '$'): string | null => {
  if (typeof value === 'string') {
    const problem = textProblem(value, JSON_TEXT_KEYS.has(at.slice(at.lastIndexOf('.') + 1)));
    return problem === null ? null : `${at} ${problem}`;
  }
  if (value === null || typeof value !== 'object') return null;
  for (const [key, item] of Object.entries(value)) {
    const found = textProblem(key) === null ? forbiddenIn(item, `${at}.${key}`) : `${at} key ${JSON.stringify(key)}`;
    if (found !== null) return found;
  }
  return null;
};

const nested = (depth: number): unknown => (depth === 0 ? 'bottom' : [nested(depth - 1)]);

/** What no message prints as it is, besides what the rules refuse: bidi controls and other format characters, line separators. */
const UNPRINTABLE_IN_MESSAGES = /[\p{Cf}\p{Zl}\p{Zp}]/u;

const loneSurrogate = fc
  .tuple(fc.string({ maxLength: 5 }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ maxLength: 5 }))
  .map(([before, unit, after]) => `${before}${String.fromCharCode(unit)}${after}`);

const hostileString = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'x\u0000y',
    '\u0001',
    '\u001b[2J',
    '\t',
    '\n',
    '\r\n',
    '\u007f',
    '\u0085',
    '\u009f',
    '\u2028',
    '\u202e',
    'a\u2066b\u2069',
    '\u200f\u061c',
    '\u{e0041}',
    '\ufeff',
    '\ufffe',
    '',
    ' ',
    '\u00a0',
    'NaN',
    'Infinity',
    '-1',
    '0',
    '1e308',
    '9'.repeat(30),
    '2030-01-01 24:00',
    '2030-02-30 10:00',
    '2030-1-1 1:1',
    'now',
    'None',
    'null',
    'true',
    '__proto__',
    'constructor',
    '../../etc/passwd',
    '%00',
    '\\u0000',
    "'; DROP TABLE events; --",
    '${7*7}',
    '😀',
    'a'.repeat(5000),
    '["==", "$gpu", "\\u0000"]',
    '["==", "$\\ud800", "1"]',
    '[">=", "$vcpus", "1e400"]',
    NET,
    NET.toUpperCase(),
  ),
  loneSurrogate,
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'binary-ascii', maxLength: 30 }),
  fc.string({ maxLength: 30 }),
);

const hostileNumber = fc.oneof(
  fc.constantFrom(
    -4,
    0,
    -0,
    1,
    1.5,
    -1.5,
    1e308,
    -1e308,
    2 ** 31,
    2 ** 31 - 1,
    2 ** 53,
    2 ** 53 + 2,
    Number.MAX_SAFE_INTEGER,
    5e-324,
    100_000,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom([], {}, [null], { '': '' }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.integer({ min: 10, max: 40 }).map(nested),
  fc.array(hostileString, { maxLength: 3 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 3 }),
);

/** Values of a JSON type the property's schema does not allow. */
const allowedTypes = (schema: Schema | undefined): Set<string> => {
  if (schema === undefined) return new Set();
  const types = new Set<string>([schema.type ?? []].flat());
  if (typeof schema.pattern === 'string') types.add('string');
  for (const option of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) for (const type of allowedTypes(option)) types.add(type);
  for (const value of schema.enum ?? []) types.add(value === null ? 'null' : typeof value);
  if (types.has('integer')) types.add('number');
  return types;
};

const BY_TYPE: Readonly<Record<string, fc.Arbitrary<unknown>>> = {
  string: hostileString,
  number: hostileNumber,
  boolean: fc.boolean(),
  null: fc.constant(null),
  array: fc.array(hostileValue, { maxLength: 3 }),
  object: fc.dictionary(hostileString, hostileValue, { maxKeys: 3 }),
};

const wrongTypeFor = (schema: Schema | undefined): fc.Arbitrary<unknown> => {
  const allowed = allowedTypes(schema);
  const others = Object.entries(BY_TYPE).filter(([type]) => !allowed.has(type));
  return others.length === 0 ? hostileValue : fc.oneof(...others.map(([, arbitrary]) => arbitrary));
};

/** Every location in a JSON value: the paths of its objects' keys and arrays' items. */
const locations = (value: unknown, path: readonly (string | number)[] = []): (readonly (string | number)[])[] => {
  if (value === null || typeof value !== 'object') return [];
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
  return entries.flatMap(([key, item]) => [[...path, key], ...locations(item, [...path, key])]);
};

const setAt = (value: unknown, path: readonly (string | number)[], replacement: unknown, remove = false): unknown => {
  const [head, ...rest] = path;
  if (head === undefined) return replacement;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  if (rest.length === 0 && remove) delete copy[head];
  else copy[head] = setAt(copy[head], rest, replacement, remove);
  return copy;
};

/** Raw request bodies a JSON library would never write. */
const RAW_BODIES: readonly (string | Buffer)[] = [
  '{',
  '{"name":',
  'null',
  '"x"',
  '5',
  '[]',
  '[1,2',
  '{"a":1}garbage',
  '{"name": "ok",}',
  "{'name': 'x'}",
  '{"name": "\\ud800"}',
  '{"name": "\\udc00x"}',
  '{"name": "a\\u0000b"}',
  '{"vcpus": 1e400}',
  '{"amount": -1e400}',
  '{"name": "ok", "name": "x\\u0000"}',
  '{"__proto__": {"isAdmin": true}, "name": "x"}',
  '{"constructor": {"prototype": {"x": 1}}}',
  `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
  `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`,
  `{"name": "${'a'.repeat(200_000)}"}`,
  '\ufeff{"name": "bom"}',
  '{"name": "raw\u0000nul"}',
  '{"name": "raw\u0085"}',
  Buffer.from('{"name":"\xc3\x28"}', 'latin1'),
  Buffer.from('{"name":"\xc0\x80"}', 'latin1'),
  Buffer.from('{"name":"\xed\xa0\x80"}', 'latin1'),
  Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]),
];

const HOSTILE_SEGMENTS = [
  '%00',
  'x%00',
  '%01',
  '%7F',
  '%C2%85',
  '%ff',
  '%ED%A0%80',
  '%C0%80',
  '%E2%80%AE',
  'x%E2%81%A6y',
  '%D8%9C',
  '%F3%A0%81%81',
  '%F0%9F%98%80',
  '..',
  '.',
  '%2e%2e',
  '%2F',
  '%2Fetc',
  '-1',
  '0',
  '00',
  '1.5',
  '1e308',
  '9'.repeat(40),
  'NaN',
  '%20',
  '+',
  'null',
  'x'.repeat(3000),
  NET,
  NET.toUpperCase(),
];

const hostileSegment = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(encodeURIComponent),
  fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 30 }).map(encodeURIComponent),
  fc.uuid().map(String),
);

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
];

describe(`hostile input against every documented operation (seed ${SEED}, ${RUNS} requests)`, () => {
  let system: RunningSystem;
  let doc: Schema;
  let operations: Operation[];
  const known: Record<string, string[]> = {};

  const resolve = (schema: Schema): Schema => {
    if (typeof schema.$ref !== 'string') return schema;
    return resolve(
      schema.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<any>((node, key) => node[key], doc),
    );
  };

  let counter = 0;
  const unique = (): number => ++counter;
  const start = () => dayAt(60 + (unique() % 300), '10:00');

  /** A body each request schema accepts; a schema without one here fails the test (a new route must be fuzzed too). */
  const VALID_BODIES: Readonly<Record<string, () => unknown>> = {
    CreateLeaseDto: () => {
      const from = start();
      return {
        name: `fuzz-lease-${unique()}`,
        start_date: from,
        end_date: from.replace('10:00', '12:00'),
        reservations: [
          pinnedHost('fuzz-host-1'),
          instanceReservation(
            1,
            { vcpus: 1, memory_mb: 256, disk_gb: 1 },
            { resource_properties: JSON.stringify(['==', '$pool', 'slots']) },
          ),
          floatingIpReservation(NET, 1),
        ],
        events: [],
      };
    },
    UpdateLeaseDto: () => ({ name: `fuzz-renamed-${unique()}` }),
    RegisterHostDto: () => ({ name: `fuzz-host-new-${unique()}`, vcpus: 4, memory_mb: 4096, local_gb: 40, gpu: 'true' }),
    HostUpdate: () => ({ gpu: 'false', rack: `r${unique()}` }),
    PropertyPrivacyDto: () => ({ private: true }),
    RegisterFloatingIpDto: () => ({ floating_network_id: NET, floating_ip_address: `10.77.${unique() % 250}.${(unique() % 250) + 1}` }),
    FlavorCreate: () => ({ flavor: { name: `fuzz-flavor-${unique()}`, vcpus: 1, ram: 512, disk: 1 } }),
    WebhookCreate: () => ({
      url: `http://127.0.0.1:61999/fuzz/${unique()}`,
      event_types: ['lease.created', 'lease.before_end_requested'],
      secret: 'fuzz-secret-0123456789',
    }),
    RateCardPublish: () => ({
      currency: 'EUR',
      effective_from: '2030-01-01 00:00',
      prices: { host_hours: '1.5', vcpu_hours: 0.01 },
      capability_prices: [{ capability: 'gpu', value: 'true', prices: { host_hours: '3' } }],
    }),
    QuotaSet: () => ({ hosts: 100_000 + unique(), vcpus: null, host_hours_per_month: 10_000_000 }),
    FairShareSet: () => ({ shares: 1 + (unique() % 100) / 4 }),
    AvailabilityQueryDto: () => ({
      reservations: [pinnedHost('fuzz-host-1'), floatingIpReservation(NET, 1)],
      duration: 'PT2H',
      not_before: start(),
      limit: 3,
    }),
    RegisterNetworkDto: () => ({
      network_type: 'vxlan',
      segment_id: 10_000 + unique(),
      switch: `s${unique()}`,
    }),
    NetworkUpdate: () => ({ switch: `s${unique()}` }),
    CreateLeaseRequestDto: () => ({
      name: `fuzz-request-${unique()}`,
      reservations: [pinnedHost('fuzz-host-1')],
      duration: 60,
      not_before: start(),
    }),
    ScheduleMaintenanceDto: () => {
      const from = start();
      return { start: from, end: from.replace('10:00', '11:00'), reason: `fuzz firmware ${unique()}` };
    },
  };

  const mutatedBody = (schemaName: string): fc.Arbitrary<unknown> => {
    const base = (VALID_BODIES[schemaName] as () => unknown)();
    const properties = (resolve(doc.components.schemas[schemaName]).properties ?? {}) as Record<string, Schema>;
    const places = [...locations(base), ...Object.keys(properties).map((key) => [key])];
    const topLevelSchema = (path: readonly (string | number)[]): Schema | undefined =>
      path.length === 1 && typeof path[0] === 'string' ? properties[path[0]] : undefined;
    return fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...places).chain((path) => hostileValue.map((value) => setAt(base, path, value))) },
      {
        weight: 3,
        arbitrary: fc.constantFrom(...places).chain((path) => wrongTypeFor(topLevelSchema(path)).map((value) => setAt(base, path, value))),
      },
      { weight: 1, arbitrary: fc.constantFrom(...places).map((path) => setAt(base, path, undefined, true)) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.constantFrom([] as (string | number)[], ...places), hostileString, hostileValue)
          .map(([path, key, value]) => setAt(base, [...path, key], value)),
      },
      { weight: 1, arbitrary: fc.constant(base) },
    );
  };

  const bodyFor = (operation: Operation): fc.Arbitrary<string | Buffer | undefined> => {
    if (operation.method === 'get') return fc.constant(undefined);
    const raw = fc.constantFrom(...RAW_BODIES);
    const json = (value: fc.Arbitrary<unknown>) => value.map((body) => JSON.stringify(body) ?? 'null');
    if (operation.body === null) return fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, json(hostileValue), raw);
    return fc.oneof(
      { weight: 6, arbitrary: json(mutatedBody(operation.body)) },
      { weight: 1, arbitrary: json(fc.jsonValue({ maxDepth: 4 })) },
      { weight: 2, arbitrary: raw },
    );
  };

  const pathFor = (operation: Operation): fc.Arbitrary<string> =>
    fc
      .tuple(
        ...operation.pathParameters.map((name) =>
          known[name] === undefined
            ? hostileSegment
            : fc.oneof({ weight: 3, arbitrary: hostileSegment }, { weight: 2, arbitrary: fc.constantFrom(...known[name]) }),
        ),
      )
      .map((values) =>
        operation.pathParameters.reduce((path, name, index) => path.replace(`{${name}}`, values[index] as string), operation.path),
      );

  const queryValue = fc.oneof(hostileSegment, fc.uuid().map(String), fc.constantFrom('true', 'false', ''));

  const queryFor = (operation: Operation): fc.Arbitrary<string> =>
    fc
      .tuple(
        fc.array(fc.tuple(fc.constantFrom(...operation.queryParameters, 'lease_id', 'detail'), queryValue), { maxLength: 3 }),
        fc.option(fc.tuple(hostileSegment, hostileSegment)),
      )
      .map(([known_, extra]) => [...known_, ...(extra === null ? [] : [extra])].map(([key, value]) => `${key}=${value}`).join('&'))
      .map((query) => (query === '' ? '' : `?${query}`));

  const requestFor = (operation: Operation): fc.Arbitrary<HostileRequest> =>
    fc
      .record({
        path: pathFor(operation),
        query: queryFor(operation),
        body: bodyFor(operation),
        contentType: fc.oneof({ weight: 8, arbitrary: fc.constant('application/json') }, fc.constantFrom(...CONTENT_TYPES)),
        // mostly none: a refused microversion stops a request before the input rules
        version: fc.oneof(
          { weight: 9, arbitrary: fc.constant(null) },
          fc.constantFrom('reservation 1.0', 'reservation latest', 'reservation 1.a', 'reservation 2.0', 'compute 2.1'),
        ),
      })
      .map(({ path, query, body, contentType, version }): HostileRequest => ({
        method: operation.method.toUpperCase(),
        url: `${system.url}${path}${query}`,
        contentType,
        headers: version === null ? {} : { 'OpenStack-API-Version': version },
        body,
      }));

  interface Answer {
    readonly status: number;
    readonly text: string;
    /** The read was served before the read models caught up (X-Leasehold-Stale): its body carries `stale`. */
    readonly stale: boolean;
  }

  const send = async (request: HostileRequest): Promise<Answer> => {
    const response = await fetch(request.url, {
      method: request.method,
      headers: { 'Content-Type': request.contentType, ...request.headers },
      body: request.body,
    });
    return { status: response.status, text: await response.text(), stale: response.headers.get('x-leasehold-stale') === 'true' };
  };

  const describeRequest = (request: HostileRequest, { status, text }: Answer): string =>
    `${request.method} ${request.url.slice(0, 300)} body ${String(request.body).slice(0, 300)} -> ${status} ${text.slice(0, 300)}`;

  /** What an accepted write appended is as clean as what the input rules let in. */
  const checkAppended = (request: HostileRequest, answer: Answer, after: number): void => {
    for (const event of eventsAfter(system.dataDir, after)) {
      expect(
        forbiddenIn(JSON.parse(event.data)),
        `${describeRequest(request, answer)}: ${event.type} holds what the input rules refuse`,
      ).toBeNull();
    }
  };

  const checkAnswer = (request: HostileRequest, answer: Answer, changed: boolean): void => {
    const { status, stale } = answer;
    const what = describeRequest(request, answer);
    expect(status, what).toBeLessThan(500);
    if (status < 400) return;
    const text = answer.text;
    const body = JSON.parse(text) as Record<string, unknown>;
    // a refusal for lack of capacity adds its counter-offer (docs/availability.md), a list of windows
    const offer = status === 409 && Array.isArray(body.alternatives) ? ['alternatives'] : [];
    expect(Object.keys(body).sort(), what).toEqual([...offer, 'error_code', 'error_message', 'error_name', ...(stale ? ['stale'] : [])]);
    expect(body.error_code, what).toBe(status);
    expect(body.error_name, what).toBe(status);
    expect(body.error_message, what).toEqual(expect.any(String));
    expect(textProblem(body.error_message as string), `${what}: the message echoes what the rules refuse`).toBeNull();
    expect(body.error_message, `${what}: the message echoes a format or separator character (U+202E...) as it is`).not.toMatch(
      UNPRINTABLE_IN_MESSAGES,
    );
    expect(changed, `${what}: a refused request changed the event log`).toBe(false);
  };

  beforeAll(async () => {
    // webhooks on, to loopback only, so that valid registrations are accepted (no publisher: nothing is sent)
    system = await startSystem({
      apps: ['api', 'projector'],
      env: { LEASEHOLD_WEBHOOKS: 'on', LEASEHOLD_WEBHOOK_ALLOWED_TARGETS: '127.0.0.1' },
    });
    const client = api(system.url);
    doc = (await client.get('/openapi.json')).body;
    const host = await client.post('/v1/os-hosts', { name: 'fuzz-host-1', vcpus: 8, memory_mb: 16_384, local_gb: 200, gpu: 'true' });
    const slots = await client.post('/v1/os-hosts', { name: 'fuzz-host-2', vcpus: 64, memory_mb: 262_144, local_gb: 2000, pool: 'slots' });
    const floatingIp = await client.post('/v1/floatingips', { floating_network_id: NET, floating_ip_address: '10.76.0.1' });
    const flavor = await client.post('/v1/flavors', { flavor: { name: 'fuzz-small', vcpus: 1, ram: 512, disk: 1 } });
    const lease = await client.post('/v1/leases', VALID_BODIES.CreateLeaseDto?.());
    const webhook = await client.post('/v1/webhooks', VALID_BODIES.WebhookCreate?.());
    const window = await client.post(`/v1/os-hosts/${host.body.host.id}/maintenance`, VALID_BODIES.ScheduleMaintenanceDto?.());
    const leaseRequest = await client.post('/v1/lease-requests', VALID_BODIES.CreateLeaseRequestDto?.());
    const fipWindow = await client.post(
      `/v1/floatingips/${floatingIp.body.floatingip.id}/maintenance`,
      VALID_BODIES.ScheduleMaintenanceDto?.(),
    );
    for (const created of [host, slots, floatingIp, flavor, lease, webhook, window, leaseRequest, fipWindow])
      expect(created.status, describeBody(created)).toBe(201);
    Object.assign(known, {
      leaseId: [lease.body.lease.id],
      hostId: [host.body.host.id],
      floatingIpId: [floatingIp.body.floatingip.id],
      flavorId: [flavor.body.flavor.id],
      webhookId: [webhook.body.webhook.id],
      windowId: [window.body.maintenance_window.id, fipWindow.body.maintenance_window.id],
      requestId: [leaseRequest.body.lease_request.id],
      name: ['gpu'],
      rateCardName: ['fuzz-card'],
      // a project of its own: a quota or shares the fuzz sets there leave the leases it creates alone
      projectId: ['fuzz-project'],
      asset: ['calendar.page.js', 'calendar.css', 'graphiql.css', 'explorer.js'],
    });
    operations = Object.entries(doc.paths as Record<string, Record<string, Schema>>).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, operation]) => {
          const parameters = ((operation.parameters ?? []) as Schema[]).map((parameter) => resolve(parameter));
          const body = operation.requestBody?.content['application/json'].schema as Schema | undefined;
          return {
            method,
            path,
            pathParameters: parameters.filter((p) => p.in === 'path').map((p) => p.name as string),
            queryParameters: parameters.filter((p) => p.in === 'query').map((p) => p.name as string),
            body: body === undefined ? null : ((body.$ref as string).split('/').pop() as string),
          };
        }),
    );
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('every request body the document describes has a valid body to mutate', () => {
    expect(operations.length).toBeGreaterThan(20);
    const bodies = [...new Set(operations.flatMap((operation) => (operation.body === null ? [] : [operation.body])))];
    expect(bodies.length).toBeGreaterThan(5);
    for (const name of bodies) expect(Object.hasOwn(VALID_BODIES, name), `no valid ${name} body in this test`).toBe(true);
  });

  it("no 5xx; every 4xx in Blazar's body and without effect on the log; nothing accepted carries what the rules refuse", async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...operations).chain(requestFor), async (request) => {
        const before = ledgerHead(system.dataDir);
        const answer = await send(request);
        const after = ledgerHead(system.dataDir);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        checkAnswer(request, answer, after.count !== before.count || after.head !== before.head);
        checkAppended(request, answer, before.head);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // the generators reach past the boundary: some requests are accepted, some refused by each layer
    expect([...statuses.keys()].filter((status) => status < 300).length, JSON.stringify([...statuses])).toBeGreaterThan(0);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(RUNS / 10);
    expect(statuses.get(404) ?? 0).toBeGreaterThan(0);
  }, 180_000);
});
