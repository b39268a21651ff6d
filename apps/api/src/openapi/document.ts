import type { INestApplication, Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DECORATORS, DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { AuthMode } from '../config.js';
import { JSON_TEXT_FIELDS, MAX_DEPTH, RESERVED_KEYS } from '../http/input-rules.js';
import type { JsonSchema } from './json-schema.js';
import { OPERATIONS, TAGS } from './operations.js';
import { COMPOSED_REQUEST_SCHEMAS, REQUEST_DTOS } from './request-schemas.js';
import { RESPONSE_SCHEMAS } from './response-schemas.js';
import { NETWORK_DTOS, NETWORK_SCHEMAS } from '../networks/network.openapi.js';
import { documentRoutes, isApiPath } from './route-decorators.js';
import { routesOf } from './routes.js';

const ERRORS: Readonly<Record<number, { readonly name: string; readonly description: string }>> = {
  400: {
    name: 'BadRequest',
    description:
      'Malformed request (an input rule, a DTO rule or a request check failed; the message names the field), or a malformed `OpenStack-API-Version`.',
  },
  401: { name: 'Unauthorized', description: 'Missing or invalid `X-Auth-Token`.' },
  403: { name: 'Forbidden', description: 'Refused by policy.' },
  404: { name: 'NotFound', description: 'No such resource (also for a path parameter that cannot be one).' },
  406: { name: 'NotAcceptable', description: 'The requested microversion is not supported (only 1.0 is).' },
  409: { name: 'Conflict', description: 'Refused in the current state (e.g. not enough hosts, host reserved, lease busy).' },
  500: { name: 'ServerError', description: 'Unexpected error.' },
  503: {
    name: 'ServiceUnavailable',
    description:
      'The storage cannot be used right now (disk full, locked beyond the busy timeout, failing): nothing was changed; try again after `Retry-After` seconds. `/readyz`: not ready.',
  },
};

const header = (description: string, schema: JsonSchema = { type: 'string' }) => ({ description, schema });

const HEADERS = {
  RequestId: header("This request's id (`req-<uuid>`), also in the access log.", { type: 'string', pattern: '^req-[0-9a-f-]{36}$' }),
  ApiVersion: header('The microversion that served the request, e.g. `reservation 1.0`.'),
  Position: header('Ledger position of this write; pass it as `X-Leasehold-Min-Position` to read your write through another API process.', {
    type: 'string',
    pattern: '^\\d+$',
  }),
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

/** The rules http/input-rules.ts applies to every body and query, whatever the schema of the field. */
const INPUT_RULES = [
  'Every request body is JSON in UTF-8. In it (every key and string value, at any depth) and in every query parameter,',
  'control characters (U+0000-U+001F, U+007F-U+009F) and lone UTF-16 surrogates are refused with 400 naming the field;',
  `so are numbers that are not finite, the keys ${[...RESERVED_KEYS].map((key) => `\`${key}\``).join(', ')}, and nesting deeper than ${MAX_DEPTH} levels.`,
  `Fields that hold JSON text (${[...JSON_TEXT_FIELDS].map((field) => `\`${field}\``).join(', ')}) may contain tab, LF and CR.`,
  'A path parameter that cannot be an id is answered 404 without a lookup.',
].join(' ');

const description = (auth: AuthMode): string =>
  [
    "Request body schemas come from the class-validator DTOs that validate the requests (`x-leasehold-dto` names the class), documented with @nestjs/swagger's decorators; response schemas are written to match Leasehold's read models.",
    'Errors come in Blazar\'s body: `{"error_code", "error_message", "error_name"}`.',
    INPUT_RULES,
    auth === 'none'
      ? 'This instance runs without authentication (`LEASEHOLD_AUTH=none`, loopback only): no token is needed.'
      : `This instance authenticates requests (\`LEASEHOLD_AUTH=${auth}\`): send a token in \`X-Auth-Token\`. Version discovery and this document need none.`,
  ].join('\n\n');

const errorResponse = ({ description: text }: { readonly description: string }) => ({
  description: text,
  headers: { 'X-OpenStack-Request-Id': refTo('headers', 'RequestId') },
  content: { 'application/json': { schema: refTo('schemas', 'BlazarError') } },
});

const configFor = (auth: AuthMode): Omit<OpenAPIObject, 'paths'> => {
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Leasehold reservation API')
    .setVersion('1.0')
    .setDescription(description(auth))
    .addSecurity('token', {
      type: 'apiKey',
      in: 'header',
      name: 'X-Auth-Token',
      description: 'A Keystone token (`LEASEHOLD_AUTH=keystone`) or a configured static token (`LEASEHOLD_AUTH=static`).',
    });
  for (const tag of TAGS) builder.addTag(tag.name, tag.description);
  if (auth !== 'none') builder.addSecurityRequirements('token');
  const config = builder.build();
  return {
    ...config,
    components: {
      ...config.components,
      schemas: { ...COMPOSED_REQUEST_SCHEMAS, ...RESPONSE_SCHEMAS, ...NETWORK_SCHEMAS },
      responses: Object.fromEntries(Object.values(ERRORS).map((error) => [error.name, errorResponse(error)])),
      parameters: PARAMETERS as NonNullable<OpenAPIObject['components']>['parameters'],
      headers: HEADERS,
    },
  };
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

type Operation = Record<string, unknown> & { parameters?: unknown[]; responses: Record<string, unknown> };

/**
 * What swagger's decorators cannot say: the header parameters and error responses every /v1
 * operation shares are references to components (ApiParam and ApiResponse always write inline
 * objects), those errors depend on the auth mode, and version discovery and health need no token
 * (an empty `security`, which ApiSecurity cannot write).
 */
const addSharedParts = (document: OpenAPIObject, auth: AuthMode): void => {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      if (operation === undefined) continue;
      if (!isApiPath(path)) {
        operation.security = [];
        continue;
      }
      const headers = ['ApiVersion', 'GlobalRequestId', ...(method === 'get' ? ['MinPosition'] : [])];
      operation.parameters = [...(operation.parameters ?? []), ...headers.map((name) => refTo('parameters', name))];
      const own = OPERATIONS[`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`]?.errors ?? [];
      for (const status of [...new Set([400, ...(auth === 'none' ? [] : [401, 403]), 406, ...own, 500, 503])].sort((a, b) => a - b)) {
        operation.responses[String(status)] = refTo('responses', ERRORS[status]?.name ?? 'ServerError');
      }
    }
  }
};

/**
 * The controllers Nest registered (read from its module graph: the application may be a preview), but those swagger is told to leave out.
 */
const documentedControllers = (app: INestApplication): Type[] =>
  [...app.get(ModulesContainer).values()]
    .flatMap((module) => [...module.controllers.values()].map((wrapper) => wrapper.metatype))
    .filter((controller): controller is Type => typeof controller === 'function')
    .filter((controller) => (Reflect.getMetadata(DECORATORS.API_EXCLUDE_CONTROLLER, controller) as boolean[] | undefined)?.[0] !== true);

export interface OpenApiResult {
  readonly document: Record<string, unknown>;
  /** Routes without documentation, documentation without a route, parameters without a rule. */
  readonly problems: readonly string[];
}

/** The OpenAPI 3.1 document of the routes this application serves (the document's own excluded). */
export const buildOpenApiDocument = (app: INestApplication, auth: AuthMode): OpenApiResult => {
  const problems = documentRoutes(routesOf(documentedControllers(app)));
  const document = SwaggerModule.createDocument(app, configFor(auth), {
    extraModels: [...REQUEST_DTOS, ...NETWORK_DTOS],
    autoTagControllers: false,
  });
  addSharedParts(document, auth);
  const { openapi, info, ...rest } = document;
  const result = {
    openapi,
    info: { ...info, summary: "OpenStack Blazar's REST API v1 (microversion 1.0), served by Leasehold." },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    ...rest,
    ...(problems.length === 0 ? {} : { 'x-leasehold-problems': problems }),
  };
  return { document: result, problems };
};
