import type { AuthMode } from '../config.js';
import type { JsonSchema } from './json-schema.js';
import { OPERATIONS, type OperationDoc, TAGS } from './operations.js';
import { requestSchemas } from './request-schemas.js';
import { RESPONSE_SCHEMAS } from './response-schemas.js';
import { type RouteInfo, openApiPath, routeKey } from './routes.js';

export interface OpenApiOptions {
  readonly routes: readonly RouteInfo[];
  readonly auth: AuthMode;
}

export interface OpenApiResult {
  readonly document: Record<string, unknown>;
  /** Routes without documentation, documentation without a route, DTO rules not expressed. */
  readonly problems: readonly string[];
}

const ERRORS: Readonly<Record<number, { readonly name: string; readonly description: string }>> = {
  400: { name: 'BadRequest', description: 'Malformed request (a DTO rule or a request check failed), or a malformed `OpenStack-API-Version`.' },
  401: { name: 'Unauthorized', description: 'Missing or invalid `X-Auth-Token`.' },
  403: { name: 'Forbidden', description: 'Refused by policy.' },
  404: { name: 'NotFound', description: 'No such resource.' },
  406: { name: 'NotAcceptable', description: 'The requested microversion is not supported (only 1.0 is).' },
  409: { name: 'Conflict', description: 'Refused in the current state (e.g. not enough hosts, host reserved, lease busy).' },
  500: { name: 'ServerError', description: 'Unexpected error.' },
  503: {
    name: 'ServiceUnavailable',
    description: 'The storage cannot be used right now (disk full, locked beyond the busy timeout, failing): nothing was changed; try again after `Retry-After` seconds. `/readyz`: not ready.',
  },
};

const header = (description: string, schema: JsonSchema = { type: 'string' }) => ({ description, schema });

const HEADERS = {
  RequestId: header("This request's id (`req-<uuid>`), also in the access log.", { type: 'string', pattern: '^req-[0-9a-f-]{36}$' }),
  ApiVersion: header('The microversion that served the request, e.g. `reservation 1.0`.'),
  Position: header(
    'Ledger position of this write; pass it as `X-Leasehold-Min-Position` to read your write through another API process.',
    { type: 'string', pattern: '^\\d+$' },
  ),
  Stale: header('`true` when the read models had not caught up with the requested position in time.', { const: 'true' }),
};

const PARAMETERS = {
  ApiVersion: {
    name: 'OpenStack-API-Version',
    in: 'header',
    description: 'Requested microversion, `reservation 1.0` or `reservation latest`; absent means 1.0.',
    schema: { type: 'string', examples: ['reservation 1.0'] },
  },
  GlobalRequestId: {
    name: 'X-OpenStack-Request-Id',
    in: 'header',
    description: "A caller's global request id (`req-<uuid>`), logged with this request's own id.",
    schema: { type: 'string', pattern: '^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' },
  },
  MinPosition: {
    name: 'X-Leasehold-Min-Position',
    in: 'header',
    description: 'Wait (bounded) until the read models include this ledger position (an `X-Leasehold-Position` from a write).',
    schema: { type: 'integer', minimum: 0 },
  },
};

const refTo = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

const isApi = (route: RouteInfo): boolean => route.path === '/v1' || route.path.startsWith('/v1/');

const operationFor = (route: RouteInfo, doc: OperationDoc | undefined, auth: AuthMode, problems: string[]): Record<string, unknown> => {
  const key = routeKey(route);
  const api = isApi(route);
  const described = new Set(Object.keys(doc?.parameters ?? {}));
  const parameters: unknown[] = [
    ...route.pathParameters.map((name) => ({ name, in: 'path', required: true, description: doc?.parameters?.[name], schema: { type: 'string' } })),
    ...route.queryParameters.map((name) => ({ name, in: 'query', required: false, description: doc?.parameters?.[name], schema: { type: 'string' } })),
    ...(api ? [refTo('parameters', 'ApiVersion'), refTo('parameters', 'GlobalRequestId')] : []),
    ...(api && route.method === 'get' ? [refTo('parameters', 'MinPosition')] : []),
  ];
  for (const name of [...route.pathParameters, ...route.queryParameters]) {
    if (doc !== undefined && !described.delete(name)) problems.push(`${key}: parameter ${name} is not described`);
  }
  for (const name of described) problems.push(`${key}: describes parameter ${name}, which the route does not take`);
  if (doc !== undefined && route.hasBody !== (doc.body !== undefined)) {
    problems.push(`${key}: ${route.hasBody ? 'takes a body that is not documented' : 'documents a body the route does not take'}`);
  }

  const headers: Record<string, unknown> = { 'X-OpenStack-Request-Id': refTo('headers', 'RequestId') };
  if (api) headers['OpenStack-API-Version'] = refTo('headers', 'ApiVersion');
  if (api && route.method !== 'get') headers['X-Leasehold-Position'] = refTo('headers', 'Position');
  if (api && route.method === 'get') headers['X-Leasehold-Stale'] = refTo('headers', 'Stale');
  const schema = doc?.response.schema;
  const responses: Record<string, unknown> = {
    [String(route.status)]: {
      description: doc?.response.description ?? 'Success.',
      headers,
      ...(schema === undefined ? {} : { content: { 'application/json': { schema } } }),
    },
  };
  const errors = api ? [400, ...(auth === 'none' ? [] : [401, 403]), 406, ...(doc?.errors ?? []), 500, 503] : [];
  for (const status of [...new Set(errors)].sort((a, b) => a - b)) responses[String(status)] = refTo('responses', ERRORS[status]?.name ?? 'ServerError');

  const body = route.hasBody || doc?.body !== undefined ? (doc?.body ?? { schema: { type: 'object' }, required: false }) : undefined;
  return {
    tags: [doc?.tag ?? (api ? (route.path.split('/')[2] ?? 'v1') : 'versions')],
    summary: doc?.summary ?? `${route.controller}.${route.handler}`,
    ...(doc?.description === undefined ? {} : { description: doc.description }),
    operationId: doc?.operationId ?? `${route.controller}_${route.handler}`,
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(body === undefined ? {} : { requestBody: { required: body.required, content: { 'application/json': { schema: body.schema } } } }),
    responses,
    ...(api ? {} : { security: [] }),
    ...(doc === undefined ? { 'x-leasehold-undocumented': true } : {}),
  };
};

/** The OpenAPI 3.1 document of the routes Nest serves. */
export const buildOpenApiDocument = ({ routes, auth }: OpenApiOptions): OpenApiResult => {
  const problems: string[] = [];
  const requests = requestSchemas();
  problems.push(...requests.problems);

  const paths: Record<string, Record<string, unknown>> = {};
  const seen = new Set<string>();
  // in Nest's registration order (controllers as listed, handlers as declared)
  for (const route of routes) {
    const key = routeKey(route);
    const doc = OPERATIONS[key];
    if (doc === undefined) problems.push(`${key} (${route.controller}.${route.handler}) is not documented`);
    seen.add(key);
    const item = (paths[openApiPath(route.path)] ??= {});
    item[route.method] = operationFor(route, doc, auth, problems);
  }
  for (const key of Object.keys(OPERATIONS)) if (!seen.has(key)) problems.push(`${key} is documented but Nest serves no such route`);

  const errorResponses = Object.fromEntries(
    Object.values(ERRORS).map(({ name, description }) => [
      name,
      { description, headers: { 'X-OpenStack-Request-Id': refTo('headers', 'RequestId') }, content: { 'application/json': { schema: refTo('schemas', 'BlazarError') } } },
    ]),
  );
  const authentication =
    auth === 'none'
      ? 'This instance runs without authentication (`LEASEHOLD_AUTH=none`, loopback only): no token is needed.'
      : `This instance authenticates requests (\`LEASEHOLD_AUTH=${auth}\`): send a token in \`X-Auth-Token\`. Version discovery and this document need none.`;
  const document: Record<string, unknown> = {
    openapi: '3.1.0',
    info: {
      title: 'Leasehold reservation API',
      version: '1.0',
      summary: "OpenStack Blazar's REST API v1 (microversion 1.0), served by Leasehold.",
      description: [
        "Request body schemas are generated at start-up from the class-validator DTOs that validate the requests (`x-leasehold-dto` names the class); response schemas are written to match Leasehold's read models.",
        'Errors come in Blazar\'s body: `{"error_code", "error_message", "error_name"}`.',
        authentication,
      ].join('\n\n'),
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    tags: TAGS,
    paths,
    components: {
      schemas: { ...requests.schemas, ...RESPONSE_SCHEMAS },
      responses: errorResponses,
      parameters: PARAMETERS,
      headers: HEADERS,
      securitySchemes: {
        token: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Auth-Token',
          description: 'A Keystone token (`LEASEHOLD_AUTH=keystone`) or a configured static token (`LEASEHOLD_AUTH=static`).',
        },
      },
    },
    ...(auth === 'none' ? {} : { security: [{ token: [] }] }),
    ...(problems.length === 0 ? {} : { 'x-leasehold-problems': problems }),
  };
  return { document, problems };
};
