/**
 * The service's own OpenAPI document (`/openapi.json`) and its Swagger UI page (`/docs`), against
 * the running system: the document covers every route Nest serves, its request schemas say what
 * the class-validator DTOs accept (checked value by value against `validateBody`), and real
 * responses match its response schemas.
 */
import 'reflect-metadata';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { RequestMethod, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { getMetadataStorage } from 'class-validator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppModule } from '#api/app.module.js';
import { loadApiConfig } from '#api/config.js';
import { CreateFlavorDto } from '#api/flavors/flavor.dto.js';
import { RegisterFloatingIpDto } from '#api/floatingips/floating-ip.dto.js';
import { PropertyPrivacyDto, RegisterHostDto } from '#api/hosts/host.dto.js';
import { ScheduleMaintenanceDto } from '#api/maintenance/maintenance.dto.js';
import { CreateLeaseRequestDto } from '#api/lease-requests/lease-request.dto.js';
import { toIntLike } from '#api/http/int-like.js';
import { validateBody } from '#api/http/validate-body.js';
import { CreateLeaseDto, ReservationTypeDto, UpdateLeaseDto } from '#api/leases/lease.dto.js';
import { ReservationUpdateDto, reservationDto } from '#api/leases/reservation.dto.js';
import { buildOpenApiDocument } from '#api/openapi/document.js';
import { checkedByParser } from '#api/openapi/dto-properties.js';
import { OpenApiModule } from '#api/openapi/openapi.module.js';
import { HOST_ID_PATTERN, PATH_PARAMETERS } from '#api/http/route-parameters.js';
import { UUID_PATTERN } from '#api/http/text.validators.js';
import {
  EVENT_KEYS,
  FLOATINGIP_RESERVATION_KEYS,
  INSTANCE_RESERVATION_KEYS,
  HOST_KEYS,
  LEASE_KEYS,
  RESERVATION_KEYS,
  dayAt,
  pinnedHost,
} from '../helpers/api-fixtures.js';
import { api } from '../helpers/http.js';
import { type StaticAuth, staticAuthByToken } from '../helpers/static-auth.js';
import { type RunningSystem, eventually, freePort, startSystem } from '../helpers/system.js';

const HostReservationDto = reservationDto('physical:host');
const InstanceReservationDto = reservationDto('virtual:instance');
const FlavorInstanceReservationDto = reservationDto('flavor:instance');
const FloatingIpReservationDto = reservationDto('virtual:floatingip');

type Schema = Record<string, any>;
type Doc = Record<string, any>;

/** Every route of the current controllers, as `METHOD /path` (Nest's `:param` form). */
const EXPECTED_ROUTES = [
  'GET /',
  'GET /calendar',
  'GET /calendar/:asset',
  'GET /graphql-explorer/:asset',
  'GET /versions',
  'GET /v1/leases',
  'POST /v1/leases',
  'GET /v1/leases/:leaseId',
  'PUT /v1/leases/:leaseId',
  'DELETE /v1/leases/:leaseId',
  'GET /v1/os-hosts',
  'POST /v1/os-hosts',
  'GET /v1/os-hosts/allocations',
  'GET /v1/os-hosts/properties',
  'PATCH /v1/os-hosts/properties/:name',
  'GET /v1/os-hosts/:hostId',
  'PUT /v1/os-hosts/:hostId',
  'DELETE /v1/os-hosts/:hostId',
  'GET /v1/os-hosts/:hostId/allocation',
  'GET /v1/plugins',
];

const DTOS = [
  CreateLeaseDto,
  UpdateLeaseDto,
  ReservationTypeDto,
  HostReservationDto,
  InstanceReservationDto,
  FlavorInstanceReservationDto,
  FloatingIpReservationDto,
  ReservationUpdateDto,
  RegisterHostDto,
  PropertyPrivacyDto,
  ScheduleMaintenanceDto,
  CreateLeaseRequestDto,
  RegisterFloatingIpDto,
  CreateFlavorDto,
];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * The routes Nest registers for the application's controllers, read straight from their decorators (the document's own module left out).
 */
const nestRoutes = (): string[] => {
  const controllers: Type[] = [];
  const visited = new Set<unknown>();
  const visit = (module: any): void => {
    const dynamic = typeof module === 'object' && module !== null;
    const metatype = dynamic ? module.module : module;
    if (typeof metatype !== 'function' || metatype === OpenApiModule || visited.has(module)) return;
    visited.add(module);
    controllers.push(...(dynamic ? (module.controllers ?? []) : []), ...(Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, metatype) ?? []));
    for (const imported of [...(dynamic ? (module.imports ?? []) : []), ...(Reflect.getMetadata(MODULE_METADATA.IMPORTS, metatype) ?? [])])
      visit(imported);
  };
  visit(AppModule.forRoot(loadApiConfig({})));
  const routes: string[] = [];
  for (const controller of new Set(controllers)) {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '/');
    for (const name of Object.getOwnPropertyNames(controller.prototype)) {
      const handler = controller.prototype[name];
      const path = Reflect.getMetadata(PATH_METADATA, handler);
      if (name === 'constructor' || path === undefined) continue;
      const segments = `${base}/${String(path)}`.split('/').filter((s) => s !== '');
      routes.push(`${RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number]} /${segments.join('/')}`);
    }
  }
  return routes;
};

const operationsOf = (doc: Doc): string[] =>
  Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => METHODS.includes(key))
      .map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
  );

const resolve = (doc: Doc, schema: Schema): Schema => {
  if (typeof schema.$ref !== 'string') return schema;
  const target = schema.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<any>((node, key) => node?.[key], doc);
  if (target === undefined) throw new Error(`unresolved $ref ${schema.$ref}`);
  return resolve(doc, target);
};

const typeOf = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
};

const hasType = (type: string, value: unknown): boolean => {
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    default:
      return typeOf(value) === type;
  }
};

/**
 * A minimal JSON Schema 2020-12 checker for the keywords the document uses; returns the failures
 * (an unknown keyword fails too, so nothing the document says goes unchecked).
 */
const check = (doc: Doc, raw: Schema, value: unknown, at = '$'): string[] => {
  const schema = resolve(doc, raw);
  const errors: string[] = [];
  const fail = (why: string) => errors.push(`${at}: ${why} (got ${JSON.stringify(value)?.slice(0, 80)})`);
  for (const [keyword, expected] of Object.entries(schema)) {
    switch (keyword) {
      case 'type': {
        const types: string[] = Array.isArray(expected) ? expected : [expected];
        if (!types.some((type) => hasType(type, value))) fail(`not ${types.join('|')}`);
        break;
      }
      case 'enum':
        if (!(expected as unknown[]).some((option) => JSON.stringify(option) === JSON.stringify(value)))
          fail(`not one of ${JSON.stringify(expected)}`);
        break;
      case 'const':
        if (JSON.stringify(expected) !== JSON.stringify(value)) fail(`not ${JSON.stringify(expected)}`);
        break;
      case 'pattern':
        if (typeof value === 'string' && !new RegExp(expected as string, 'u').test(value)) fail(`does not match ${expected}`);
        break;
      case 'maxLength':
        if (typeof value === 'string' && [...value].length > (expected as number)) fail(`longer than ${expected}`);
        break;
      case 'minLength':
        if (typeof value === 'string' && [...value].length < (expected as number)) fail(`shorter than ${expected}`);
        break;
      case 'minimum':
        if (typeof value === 'number' && value < (expected as number)) fail(`below ${expected}`);
        break;
      case 'maximum':
        if (typeof value === 'number' && value > (expected as number)) fail(`above ${expected}`);
        break;
      case 'oneOf': {
        const matches = (expected as Schema[]).filter((sub) => check(doc, sub, value, at).length === 0).length;
        if (matches !== 1) fail(`matches ${matches} of oneOf`);
        break;
      }
      case 'minProperties':
        if (typeOf(value) === 'object' && Object.keys(value as object).length < (expected as number))
          fail(`fewer than ${expected} properties`);
        break;
      case 'required':
        if (typeOf(value) === 'object') for (const key of expected as string[]) if (!(key in (value as object))) fail(`missing ${key}`);
        break;
      case 'properties':
        if (typeOf(value) === 'object') {
          for (const [key, sub] of Object.entries(expected as Record<string, Schema>)) {
            if (key in (value as object)) errors.push(...check(doc, sub, (value as Record<string, unknown>)[key], `${at}.${key}`));
          }
        }
        break;
      case 'additionalProperties':
        if (typeOf(value) === 'object') {
          const declared = Object.keys(schema.properties ?? {});
          for (const [key, item] of Object.entries(value as object).filter(([k]) => !declared.includes(k))) {
            if (expected === false) fail(`unexpected ${key}`);
            else if (expected !== true) errors.push(...check(doc, expected as Schema, item, `${at}.${key}`));
          }
        }
        break;
      case 'items':
        if (Array.isArray(value)) value.forEach((item, i) => errors.push(...check(doc, expected as Schema, item, `${at}[${i}]`)));
        break;
      case 'anyOf':
        if (!(expected as Schema[]).some((sub) => check(doc, sub, value, at).length === 0)) fail('matches none of anyOf');
        break;
      case 'allOf':
        for (const sub of expected as Schema[]) errors.push(...check(doc, sub, value, at));
        break;
      case 'not':
        if (check(doc, expected as Schema, value, at).length === 0) fail(`matches what is excluded (${JSON.stringify(expected)})`);
        break;
      case 'propertyNames':
        if (typeOf(value) === 'object')
          for (const key of Object.keys(value as object))
            errors.push(...check(doc, expected as Schema, key, `${at}[${JSON.stringify(key)}]`));
        break;
      case 'format':
      case 'description':
      case 'examples':
      case 'title':
        break;
      default:
        if (!keyword.startsWith('x-')) fail(`keyword ${keyword} is not understood by this checker`);
    }
  }
  return errors;
};

const accepts = (doc: Doc, schema: Schema, value: unknown): boolean => check(doc, schema, value).length === 0;

const validatedProperties = (dto: Type): string[] => [
  ...new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(dto, '', false, false)
      .map((meta) => meta.propertyName),
  ),
];

const passesDto = (dto: new () => object, body: unknown): boolean => {
  try {
    validateBody(dto, body);
    return true;
  } catch {
    return false;
  }
};

const ABSENT = Symbol('absent');
const SAMPLES: unknown[] = [
  ABSENT,
  null,
  'x',
  '',
  'a'.repeat(80),
  'a'.repeat(81),
  'a'.repeat(256),
  5,
  0,
  -3,
  2.5,
  '5',
  ' 7 ',
  '+1',
  '-2',
  '2.5',
  '1e3',
  'two',
  true,
  false,
  'true',
  [],
  ['x'],
  {},
  'default',
  'snapshot',
  'physical:host',
  'None',
  ' False ',
  'maybe',
  [1],
  ['10.0.0.1'],
  -0,
  2 ** 53,
  ' ',
  '\u00a0',
  '9'.repeat(15),
  '9'.repeat(16),
  'Infinity',
  '1e308',
  1e308,
  -(2 ** 53),
  Number.MAX_SAFE_INTEGER,
  '3f0b6a52-1c1e-4d7e-9a43-0d1f6e2b7a01',
  '3F0B6A52-1C1E-4D7E-9A43-0D1F6E2B7A01',
  '3f0b6a521c1e4d7e9a430d1f6e2b7a01',
];

/** A body each DTO accepts, from which one property at a time is varied. */
const VALID_BODIES = new Map<Type, Record<string, unknown>>([
  [CreateLeaseDto, { name: 'lease', start_date: '2030-01-01 12:00', end_date: '2030-01-02 12:00' }],
  [UpdateLeaseDto, {}],
  [ReservationTypeDto, { resource_type: 'physical:host' }],
  [HostReservationDto, { min: 1, max: 1 }],
  [InstanceReservationDto, { vcpus: 1, memory_mb: 1, disk_gb: 0, amount: 1 }],
  [FlavorInstanceReservationDto, { flavor_id: '3', amount: 1 }],
  [FloatingIpReservationDto, { network_id: '3f0b6a52-1c1e-4d7e-9a43-0d1f6e2b7a01', amount: 1 }],
  [ReservationUpdateDto, { id: 'reservation' }],
  [RegisterHostDto, { name: 'host' }],
  [PropertyPrivacyDto, { private: true }],
  [ScheduleMaintenanceDto, { start: '2030-01-01 10:00', end: '2030-01-01 12:00', reason: 'firmware' }],
  [CreateLeaseRequestDto, { name: 'request', reservations: [{ resource_type: 'physical:host', min: 1, max: 1 }], duration: 60 }],
  [RegisterFloatingIpDto, { floating_network_id: '3f0b6a52-1c1e-4d7e-9a43-0d1f6e2b7a01', floating_ip_address: '10.0.0.1' }],
  [CreateFlavorDto, { name: 'flavor', vcpus: 1, ram: 1, disk: 0 }],
]);

describe('OpenAPI document and /docs', () => {
  let system: RunningSystem;
  let client: ReturnType<typeof api>;
  let doc: Doc;
  let documentResponse: Response;

  beforeAll(async () => {
    // webhooks on (to loopback only) so that their routes answer as in production
    system = await startSystem({
      env: { LEASEHOLD_WEBHOOKS: 'on', LEASEHOLD_WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', LEASEHOLD_PUBLISHER_HEALTH_PORT: '0' },
    });
    client = api(system.url);
    documentResponse = await fetch(`${system.url}/openapi.json`);
    doc = (await documentResponse.clone().json()) as Doc;
  });

  afterAll(async () => {
    await system?.stop();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-4000)}`);
  });

  const requestSchema = (method: string, path: string): Schema =>
    resolve(doc, doc.paths[path][method].requestBody.content['application/json'].schema as Schema);

  describe('/openapi.json', () => {
    it('is served as JSON without a token, outside the microversioned API', () => {
      expect(documentResponse.status).toBe(200);
      expect(documentResponse.headers.get('content-type')).toMatch(/^application\/json/);
      expect(documentResponse.headers.get('openstack-api-version')).toBeNull();
      expect(documentResponse.headers.get('x-openstack-request-id')).toMatch(/^req-/);
    });

    it('is built at its first request from the running routes, as a preview of the application builds it, and kept', async () => {
      // a preview application: the routes and modules, no provider started (no store, no read model)
      const app = await NestFactory.create(AppModule.forRoot(loadApiConfig({})), new FastifyAdapter(), { preview: true, logger: false });
      const { document } = buildOpenApiDocument(app, 'none');
      await app.close();
      expect(doc).toEqual(JSON.parse(JSON.stringify(document)));
      const again = await fetch(`${system.url}/openapi.json`);
      expect(again.status).toBe(200);
      expect(await again.text()).toBe(await documentResponse.clone().text());
    });

    it('is an OpenAPI 3.1 document that reports no gaps', () => {
      expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
      expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
      expect(doc['x-leasehold-problems'], 'routes, DTO rules or docs the generator could not match').toBeUndefined();
      expect(Object.keys(doc.components.schemas).length).toBeGreaterThan(10);
      expect(doc.components.securitySchemes.token).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Auth-Token' });
    });

    it('has an operation for every route Nest serves, and no other', () => {
      const operations = operationsOf(doc);
      expect(new Set(operations).size).toBe(operations.length);
      expect([...operations].sort()).toEqual([...nestRoutes()].sort());
      expect(operations).toEqual(expect.arrayContaining(EXPECTED_ROUTES));
      expect(operations).not.toContain('GET /openapi.json');
    });

    it('documents every operation: summary, unique operationId, path parameters and responses', () => {
      const ids = new Set<string>();
      for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
        for (const [method, operation] of Object.entries(item)) {
          const name = `${method.toUpperCase()} ${path}`;
          expect(operation['x-leasehold-undocumented'], name).toBeUndefined();
          expect(operation.summary, name).toEqual(expect.any(String));
          expect(ids.has(operation.operationId), `${name}: duplicate operationId`).toBe(false);
          ids.add(operation.operationId);
          const pathParameters = (operation.parameters ?? []).map((p: Schema) => resolve(doc, p)).filter((p: Schema) => p.in === 'path');
          expect(pathParameters.map((p: Schema) => p.name).sort(), name).toEqual([...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort());
          expect(Object.keys(operation.responses).length, name).toBeGreaterThan(0);
          for (const response of Object.values(operation.responses))
            expect(resolve(doc, response as Schema).description, name).toEqual(expect.any(String));
        }
      }
      expect(doc.paths['/'].get.responses['300']).toBeDefined();
      expect(doc.paths['/v1/leases'].post.responses['201']).toBeDefined();
      expect(doc.paths['/v1/leases/{leaseId}'].delete.responses['204']).toBeDefined();
      expect(doc.paths['/v1/leases'].post.responses['201'].headers['X-Leasehold-Position']).toBeDefined();
      expect(doc.paths['/v1/leases'].get.parameters).toContainEqual({ $ref: '#/components/parameters/MinPosition' });
      expect(doc.paths['/v1/os-hosts/allocations'].get.parameters.map((p: Schema) => p.name).filter(Boolean)).toEqual([
        'lease_id',
        'reservation_id',
        'as_of',
        'limit',
        'marker',
        'sort_key',
        'sort_dir',
      ]);
    });

    it('documents as_of on exactly the reads that answer it', () => {
      const takesAsOf = Object.entries(doc.paths as Record<string, { get?: { parameters?: Schema[] } }>)
        .filter(([, item]) => item.get?.parameters?.some((p) => p.name === 'as_of'))
        .map(([path]) => path)
        .sort();
      expect(takesAsOf).toEqual([
        '/v1/floatingips',
        '/v1/floatingips/allocations',
        '/v1/floatingips/{floatingIpId}',
        '/v1/leases',
        '/v1/leases/{leaseId}',
        '/v1/networks',
        '/v1/networks/allocations',
        '/v1/networks/{networkId}',
        '/v1/os-hosts',
        '/v1/os-hosts/allocations',
        '/v1/os-hosts/{hostId}',
      ]);
    });

    it('path and query parameters carry the patterns RouteParametersPipe enforces; the input rules are described', () => {
      const parameters = Object.values(doc.paths as Record<string, Record<string, any>>)
        .flatMap((item) => Object.values(item))
        .flatMap((operation) => (operation.parameters ?? []).map((p: Schema) => resolve(doc, p)))
        .filter((p: Schema) => p.in === 'path' || p.in === 'query');
      const byName = new Map(parameters.map((p: Schema) => [p.name as string, p.schema as Schema]));
      expect(byName.get('leaseId')).toMatchObject({ type: 'string', pattern: UUID_PATTERN });
      expect(byName.get('floatingIpId')).toMatchObject({ type: 'string', pattern: UUID_PATTERN });
      expect(byName.get('hostId')).toMatchObject({ type: 'string', pattern: HOST_ID_PATTERN });
      expect(byName.get('lease_id')).toMatchObject({ type: 'string', pattern: UUID_PATTERN });
      for (const parameter of parameters.filter((p: Schema) => p.in === 'path')) {
        expect(parameter.schema.pattern, parameter.name).toBe(PATH_PARAMETERS[parameter.name]?.pattern);
        expect(new RegExp(parameter.schema.pattern, 'u').test('x\u0000'), parameter.name).toBe(false);
      }
      expect(doc.info.description).toMatch(/control characters .* lone UTF-16 surrogates are refused with 400 naming the field/);
    });

    it('every $ref resolves', () => {
      const refs: string[] = [];
      const walk = (node: unknown): void => {
        if (Array.isArray(node)) node.forEach(walk);
        else if (node !== null && typeof node === 'object') {
          for (const [key, value] of Object.entries(node)) {
            if (key === '$ref') refs.push(value as string);
            else walk(value);
          }
        }
      };
      walk(doc);
      expect(refs.length).toBeGreaterThan(20);
      for (const ref of refs) expect(() => resolve(doc, { $ref: ref }), ref).not.toThrow();
    });
  });

  describe('request schemas come from the DTOs', () => {
    it('POST /v1/leases: name is a required string of at most 80 characters; start_date and end_date are required', () => {
      const schema = requestSchema('post', '/v1/leases');
      expect(schema['x-leasehold-dto']).toBe('CreateLeaseDto');
      expect(schema.required).toEqual(expect.arrayContaining(['name', 'start_date', 'end_date']));
      expect(schema.required).not.toContain('reservations');
      expect(schema.properties.name).toMatchObject({ type: 'string', maxLength: 80 });
      const item = resolve(doc, schema.properties.reservations.items);
      expect(item.allOf).toEqual([{ $ref: '#/components/schemas/ReservationTypeDto' }]);
      expect(item.oneOf.map((choice: Schema) => [choice.properties.resource_type.const, choice.allOf[0].$ref])).toEqual([
        ['physical:host', '#/components/schemas/HostReservationDto'],
        ['virtual:instance', '#/components/schemas/InstanceReservationDto'],
        ['flavor:instance', '#/components/schemas/FlavorInstanceReservationDto'],
        ['virtual:floatingip', '#/components/schemas/FloatingIpReservationDto'],
        ['network', '#/components/schemas/NetworkReservationDto'],
      ]);
    });

    it('PUT /v1/leases/{id} and PATCH .../properties/{name} use their DTOs', () => {
      expect(requestSchema('put', '/v1/leases/{leaseId}')['x-leasehold-dto']).toBe('UpdateLeaseDto');
      expect(requestSchema('put', '/v1/leases/{leaseId}').required).toBeUndefined();
      expect(requestSchema('post', '/v1/os-hosts')['x-leasehold-dto']).toBe('RegisterHostDto');
      expect(requestSchema('patch', '/v1/os-hosts/properties/{name}')).toMatchObject({
        'x-leasehold-dto': 'PropertyPrivacyDto',
        required: ['private'],
        properties: { private: { type: 'boolean' } },
      });
    });

    it('HostReservationDto: min and max are required and accept an integer or an int-like string, exactly as IsIntLike does', () => {
      const schema = resolve(doc, doc.components.schemas.HostReservationDto);
      expect(schema.required).toEqual(['min', 'max']);
      for (const key of ['min', 'max']) {
        const property = schema.properties[key];
        expect(property.anyOf).toEqual([
          { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
          { type: 'string', pattern: expect.any(String) },
        ]);
        for (const value of [
          1,
          0,
          -4,
          2.5,
          '2',
          ' 3 ',
          '+1',
          '-1',
          '2.5',
          '1e3',
          'x',
          '',
          ' ',
          true,
          null,
          [],
          {},
          1e308,
          2 ** 53,
          '9'.repeat(16),
          '9'.repeat(15),
        ]) {
          expect(accepts(doc, property, value), `${key} = ${JSON.stringify(value)}`).toBe(toIntLike(value) !== null);
        }
      }
      // in a reservation update they are optional, but still int-like when given
      const update = resolve(doc, doc.components.schemas.ReservationUpdateDto);
      expect(update.required).toEqual(['id']);
      expect(update.properties.min.anyOf).toEqual(schema.properties.min.anyOf);
    });

    it.each(DTOS.map((dto) => [dto.name, dto] as const))(
      '%s: the schema has exactly the properties class-validator validates',
      (name, dto) => {
        const schema = doc.components.schemas[name];
        expect(schema['x-leasehold-dto']).toBe(name);
        expect(Object.keys(schema.properties)).toEqual(validatedProperties(dto));
      },
    );

    it.each(DTOS.map((dto) => [dto.name, dto] as const))('%s: the schema accepts a value exactly when validateBody does', (name, dto) => {
      const schema = doc.components.schemas[name] as Schema;
      const base = VALID_BODIES.get(dto) as Record<string, unknown>;
      expect(passesDto(dto, base)).toBe(true);
      expect(check(doc, schema, base)).toEqual([]);
      let compared = 0;
      for (const property of Object.keys(schema.properties as Record<string, Schema>)) {
        // what the request parsers check after the DTO (date format, reservation items) is not the DTO's to accept
        if (checkedByParser(dto, property)) continue;
        for (const sample of SAMPLES) {
          const body = { ...base };
          if (sample === ABSENT) delete body[property];
          else body[property] = sample;
          const label = `${name}.${property} = ${sample === ABSENT ? '(absent)' : JSON.stringify(sample)}`;
          expect(accepts(doc, schema, body), `${label}: ${check(doc, schema, body).join('; ')}`).toBe(passesDto(dto, body));
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(0);
    });
  });

  describe('responses match the response schemas', () => {
    const responseSchema = (method: string, path: string, status: number): Schema => {
      const response = resolve(doc, doc.paths[path][method].responses[String(status)]);
      return response.content['application/json'].schema as Schema;
    };

    const conforms = (method: string, path: string, response: { status: number; body: unknown }, status: number) => {
      expect(response.status, JSON.stringify(response.body)).toBe(status);
      expect(check(doc, responseSchema(method, path, status), response.body)).toEqual([]);
    };

    it('the view schemas list the keys Blazar shows, in its order', () => {
      expect(Object.keys(doc.components.schemas.Lease.properties)).toEqual(LEASE_KEYS);
      expect(Object.keys(doc.components.schemas.HostReservation.properties)).toEqual(RESERVATION_KEYS);
      expect(Object.keys(doc.components.schemas.InstanceReservation.properties)).toEqual(INSTANCE_RESERVATION_KEYS);
      expect(Object.keys(doc.components.schemas.FloatingIpReservation.properties)).toEqual(FLOATINGIP_RESERVATION_KEYS);
      expect(Object.keys(doc.components.schemas.LeaseEvent.properties)).toEqual(EVENT_KEYS);
      expect(Object.keys(doc.components.schemas.Host.properties)).toEqual(HOST_KEYS);
    });

    it('webhooks: registration, list, show, deliveries with an attempt, errors, deletion', async () => {
      // nothing listens there: the first attempt fails with an error and no status, as the schema allows
      const created = await client.post('/v1/webhooks', {
        url: `http://127.0.0.1:${await freePort()}/hook`,
        event_types: ['*'],
        secret: 'openapi-secret-0123456789',
      });
      conforms('post', '/v1/webhooks', created, 201);
      const webhookId = created.body.webhook.id as string;
      conforms('get', '/v1/webhooks', await client.get('/v1/webhooks'), 200);
      conforms('get', '/v1/webhooks/{webhookId}', await client.get(`/v1/webhooks/${webhookId}`), 200);
      conforms('get', '/v1/webhooks/{webhookId}', await client.get('/v1/webhooks/00000000-0000-4000-8000-000000000000'), 404);
      conforms(
        'post',
        '/v1/webhooks',
        await client.post('/v1/webhooks', { url: 'ftp://x', event_types: ['*'], secret: 'openapi-secret-0123456789' }),
        400,
      );
      const lease = await client.post('/v1/leases', {
        name: 'openapi-hooked',
        start_date: dayAt(40, '10:00'),
        end_date: dayAt(41, '10:00'),
        reservations: [],
        events: [],
      });
      expect(lease.status).toBe(201);
      const deliveries = await eventually(
        async () => {
          const reply = await client.get(`/v1/webhooks/${webhookId}/deliveries`);
          return reply.body.deliveries.some((d: Schema) => d.attempts.length > 0) ? reply : undefined;
        },
        20_000,
        'a delivery attempted',
      );
      conforms('get', '/v1/webhooks/{webhookId}/deliveries', deliveries, 200);
      expect(deliveries.body.deliveries[0].attempts[0]).toMatchObject({ status_code: null, error: expect.any(String) });
      const deleted = await fetch(`${system.url}/v1/webhooks/${webhookId}`, { method: 'DELETE' });
      expect(deleted.status).toBe(204);
      conforms('get', '/v1/webhooks/{webhookId}/deliveries', await client.get(`/v1/webhooks/${webhookId}/deliveries`), 404);
    });

    it('hosts, leases, allocations, properties, plugins, versions and errors', async () => {
      const created = await client.post('/v1/os-hosts', { name: 'openapi-host', vcpus: '8', memory_mb: 4096, gpu: 'true' });
      conforms('post', '/v1/os-hosts', created, 201);
      expect(created.headers.get('x-leasehold-position')).toMatch(/^\d+$/);
      const hostId = created.body.host.id as string;

      const start = dayAt(30, '10:00');
      const end = dayAt(31, '10:00');
      const lease = await client.post('/v1/leases', {
        name: 'openapi-lease',
        start_date: start,
        end_date: end,
        reservations: [{ ...pinnedHost('openapi-host'), min: '1', max: 1 }],
        events: [],
      });
      conforms('post', '/v1/leases', lease, 201);
      const leaseId = lease.body.lease.id as string;
      const position = { 'X-Leasehold-Min-Position': lease.headers.get('x-leasehold-position') as string };

      conforms('get', '/v1/leases', await client.get('/v1/leases', position), 200);
      conforms('get', '/v1/leases/{leaseId}', await client.get(`/v1/leases/${leaseId}`, position), 200);
      conforms('put', '/v1/leases/{leaseId}', await client.put(`/v1/leases/${leaseId}`, { name: 'openapi-renamed' }), 200);
      conforms('get', '/v1/os-hosts', await client.get('/v1/os-hosts', position), 200);
      conforms('get', '/v1/os-hosts/{hostId}', await client.get(`/v1/os-hosts/${hostId}`, position), 200);
      conforms('put', '/v1/os-hosts/{hostId}', await client.put(`/v1/os-hosts/${hostId}`, { rack: 'r1' }), 200);
      const allocations = await client.get('/v1/os-hosts/allocations', position);
      conforms('get', '/v1/os-hosts/allocations', allocations, 200);
      expect(allocations.body.allocations.flatMap((a: Schema) => a.reservations)).not.toEqual([]);
      conforms(
        'get',
        '/v1/os-hosts/{hostId}/allocation',
        await client.get(`/v1/os-hosts/${hostId}/allocation?lease_id=${leaseId}`, position),
        200,
      );
      conforms('get', '/v1/os-hosts/properties', await client.get('/v1/os-hosts/properties', position), 200);
      const detailed = await client.get('/v1/os-hosts/properties?detail=true', position);
      conforms('get', '/v1/os-hosts/properties', detailed, 200);
      expect(detailed.body.resource_properties).toContainEqual(expect.objectContaining({ property: 'gpu', values: ['true'] }));
      conforms('patch', '/v1/os-hosts/properties/{name}', await client.patch('/v1/os-hosts/properties/gpu', { private: true }), 200);
      conforms('get', '/v1/plugins', await client.get('/v1/plugins'), 200);
      const history = await client.get(`/v1/leases/${leaseId}/history`);
      conforms('get', '/v1/leases/{leaseId}/history', history, 200);
      expect(history.body.history.map((entry: Schema) => entry.type)).toEqual(['lease.created', 'host.booked', 'lease.renamed']);
      conforms('get', '/v1/os-hosts/{hostId}/history', await client.get(`/v1/os-hosts/${hostId}/history`), 200);
      conforms('get', '/v1/os-hosts/{hostId}/history', await client.get('/v1/os-hosts/999999/history'), 404);
      const duplicate = await client.post('/v1/os-hosts', { name: 'openapi-host' });
      conforms('post', '/v1/os-hosts', duplicate, 409);
      const audit = await client.get('/v1/audit?outcome=refused');
      conforms('get', '/v1/audit', audit, 200);
      expect(audit.body.audit.map((entry: Schema) => entry.type)).toEqual(['audit.write_refused']);
      conforms('get', '/v1/audit', await client.get('/v1/audit?start=never'), 400);
      for (const path of ['/', '/versions']) conforms('get', path, await client.get(path), 300);

      const missing = await client.get('/v1/leases/no-such-lease');
      conforms('get', '/v1/leases/{leaseId}', missing, 404);
      const invalid = await client.post('/v1/leases', { name: 'x'.repeat(81), start_date: start, end_date: end });
      conforms('post', '/v1/leases', invalid, 400);
      expect(accepts(doc, requestSchema('post', '/v1/leases'), { name: 'x'.repeat(81), start_date: start, end_date: end })).toBe(false);

      const deleted = await fetch(`${system.url}/v1/leases/${leaseId}`, { method: 'DELETE' });
      expect(deleted.status).toBe(204);
      expect(doc.paths['/v1/leases/{leaseId}'].delete.responses['204'].content).toBeUndefined();
    });

    it('lease requests: queued, listed, shown, history, withdrawn, bad input', async () => {
      const busy = await client.post('/v1/os-hosts', { name: 'openapi-requested', group: 'openapi-requested' });
      const onlyIt = {
        resource_type: 'physical:host',
        min: 1,
        max: 1,
        hypervisor_properties: '',
        resource_properties: '["==", "$group", "openapi-requested"]',
      };
      const taken = await client.post('/v1/leases', {
        name: 'openapi-taken',
        start_date: dayAt(51, '10:00'),
        end_date: dayAt(51, '12:00'),
        reservations: [onlyIt],
      });
      expect(busy.status + taken.status).toBe(402);
      const body = {
        name: 'openapi-request',
        reservations: [onlyIt],
        duration: 'PT2H',
        not_before: dayAt(51, '10:00'),
        start_by: dayAt(52, '10:00'),
      };
      const queued = await client.post('/v1/lease-requests', body);
      conforms('post', '/v1/lease-requests', queued, 201);
      expect(queued.body.lease_request).toMatchObject({
        status: 'queued',
        predicted_start: `${dayAt(51, '12:00').replace(' ', 'T')}:00.000000`,
      });
      const id = queued.body.lease_request.id as string;
      conforms('get', '/v1/lease-requests', await client.get('/v1/lease-requests'), 200);
      conforms('get', '/v1/lease-requests/{requestId}', await client.get(`/v1/lease-requests/${id}`), 200);
      conforms('get', '/v1/lease-requests/{requestId}/history', await client.get(`/v1/lease-requests/${id}/history`), 200);
      conforms('post', '/v1/lease-requests', await client.post('/v1/lease-requests', { ...body, duration: 0 }), 400);
      conforms('get', '/v1/lease-requests/{requestId}', await client.get('/v1/lease-requests/00000000-0000-4000-8000-000000000000'), 404);
      expect((await client.delete(`/v1/lease-requests/${id}`)).status).toBe(204);
      conforms('delete', '/v1/lease-requests/{requestId}', await client.delete(`/v1/lease-requests/${id}`), 409);
    });

    it('maintenance windows: scheduled, listed per host and over all, cancelled, bad input', async () => {
      const created = await client.post('/v1/os-hosts', { name: 'openapi-maintained' });
      const hostId = created.body.host.id as string;
      const window = await client.post(`/v1/os-hosts/${hostId}/maintenance`, {
        start: dayAt(50, '10:00'),
        end: dayAt(50, '12:00'),
        reason: 'firmware',
      });
      conforms('post', '/v1/os-hosts/{hostId}/maintenance', window, 201);
      conforms('get', '/v1/os-hosts/{hostId}/maintenance', await client.get(`/v1/os-hosts/${hostId}/maintenance`), 200);
      conforms('get', '/v1/os-hosts/maintenance', await client.get('/v1/os-hosts/maintenance'), 200);
      conforms(
        'post',
        '/v1/os-hosts/{hostId}/maintenance',
        await client.post(`/v1/os-hosts/${hostId}/maintenance`, { start: 'soon' }),
        400,
      );
      conforms('get', '/v1/os-hosts/{hostId}/maintenance', await client.get('/v1/os-hosts/999999/maintenance'), 404);
      const cancelled = await client.delete(`/v1/os-hosts/${hostId}/maintenance/${window.body.maintenance_window.id as string}`);
      expect(cancelled.status).toBe(204);
    });

    it('fair share: shares set, one project and every project listed, reset, bad input', async () => {
      conforms('put', '/v1/fair-share/{projectId}', await client.put('/v1/fair-share/openapi-project', { shares: 2.5 }), 200);
      conforms('get', '/v1/fair-share/{projectId}', await client.get('/v1/fair-share/openapi-project'), 200);
      conforms('get', '/v1/fair-share', await client.get('/v1/fair-share'), 200);
      conforms('put', '/v1/fair-share/{projectId}', await client.put('/v1/fair-share/openapi-project', { shares: 'many' }), 400);
      expect((await client.delete('/v1/fair-share/openapi-project')).status).toBe(204);
      conforms('delete', '/v1/fair-share/{projectId}', await client.delete('/v1/fair-share/openapi-project'), 404);
    });
  });

  describe('with authentication', () => {
    it('asks for X-Auth-Token on /v1 (401/403 possible), never for version discovery', async () => {
      // a preview application: the routes and modules, no provider started (no store, no read model)
      const app = await NestFactory.create(AppModule.forRoot(loadApiConfig({})), new FastifyAdapter(), { preview: true, logger: false });
      const { document, problems } = buildOpenApiDocument(app, 'keystone');
      await app.close();
      const built = document as Doc;
      expect(problems).toEqual([]);
      expect(built.security).toEqual([{ token: [] }]);
      expect(built.paths['/'].get.security).toEqual([]);
      expect(built.paths['/versions'].get.security).toEqual([]);
      expect(built.paths['/v1/leases'].get.security).toBeUndefined();
      expect(Object.keys(built.paths['/v1/leases'].get.responses)).toEqual(expect.arrayContaining(['401', '403']));
      // the running system (auth none) asks for none
      expect(doc.security).toBeUndefined();
      expect(doc.paths['/v1/leases'].get.responses['401']).toBeUndefined();
    });
  });

  describe('/docs', () => {
    it('is an HTML page that loads Swagger UI from this service and points it at /openapi.json', async () => {
      const response = await fetch(`${system.url}/docs`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await response.text();
      const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
      expect(assets).toEqual(expect.arrayContaining(['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/openapi.json']));
      expect(
        assets.filter((asset) => /^(https?:)?\/\//.test(asset)),
        'no CDN',
      ).toEqual([]);
      const scripts: string[] = [];
      for (const asset of assets) {
        const loaded = await fetch(`${system.url}${asset}`);
        expect(loaded.status, asset).toBe(200);
        const body = await loaded.text();
        expect(body.length, asset).toBeGreaterThan(0);
        if (asset.endsWith('.css')) expect(loaded.headers.get('content-type'), asset).toMatch(/^text\/css/);
        if (asset.endsWith('.js')) {
          expect(loaded.headers.get('content-type'), asset).toMatch(/javascript/);
          scripts.push(body);
        }
      }
      expect(scripts.some((script) => script.includes('SwaggerUIBundle') && script.includes("url: '/openapi.json'"))).toBe(true);
    });

    it('serves only the files the page needs', async () => {
      for (const path of ['/docs/package.json', '/docs/index.js', '/docs/..%2Fpackage.json', '/docs/swagger-ui-bundle.js.map']) {
        const response = await fetch(`${system.url}${path}`);
        expect(response.status, path).toBe(404);
        expect(await response.json()).toMatchObject({ error_code: 404 });
      }
    });
  });
});

describe('OpenAPI document and /docs with token authentication (LEASEHOLD_AUTH=static)', () => {
  let system: RunningSystem;
  let tokens: StaticAuth;

  beforeAll(async () => {
    tokens = staticAuthByToken({ 'openapi-token': { user_id: 'u', project_id: 'p', roles: ['admin'] } });
    system = await startSystem({ apps: ['api'], env: tokens.env });
  });

  afterAll(async () => {
    await system?.stop();
    tokens?.remove();
  });

  it('are served without a token, like version discovery, and say that /v1 needs one', async () => {
    for (const path of [
      '/openapi.json',
      '/docs',
      '/docs/swagger-ui-bundle.js',
      '/docs/swagger-ui.css',
      '/calendar',
      '/calendar/calendar.page.js',
      '/calendar/calendar.css',
      '/graphql-explorer/graphiql.min.js',
    ]) {
      expect((await fetch(`${system.url}${path}`)).status, path).toBe(200);
    }
    expect((await fetch(`${system.url}/v1/leases`)).status).toBe(401);
    const doc = (await (await fetch(`${system.url}/openapi.json`)).json()) as Doc;
    expect(doc['x-leasehold-problems']).toBeUndefined();
    expect(doc.security).toEqual([{ token: [] }]);
    expect(doc.paths['/'].get.security).toEqual([]);
    expect(doc.paths['/v1/leases'].get.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
  });
});
