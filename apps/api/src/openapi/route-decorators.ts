import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { PATH_PARAMETERS, type ParameterRule, QUERY_PARAMETERS } from '../http/route-parameters.js';
import type { JsonSchema } from './json-schema.js';
import type { OperationDoc } from './operation-doc.js';
import { OPERATIONS } from './operations.js';
import { type RouteInfo, routeKey } from './routes.js';

/**
 * The @nestjs/swagger decorators each handler would carry, applied from the OPERATIONS table (the
 * controllers stay free of documentation). Swagger reads them when it builds the document.
 */

export const isApiPath = (path: string): boolean => path === '/v1' || path.startsWith('/v1/');

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The headers the middleware and the read-your-writes interceptor set on a success. */
const successHeaders = (route: RouteInfo): Record<string, { $ref: string }> => {
  if (!isApiPath(route.path)) return { 'X-OpenStack-Request-Id': headerRef('RequestId') };
  return {
    'X-OpenStack-Request-Id': headerRef('RequestId'),
    'OpenStack-API-Version': headerRef('ApiVersion'),
    ...(route.method === 'get' ? { 'X-Leasehold-Stale': headerRef('Stale') } : { 'X-Leasehold-Position': headerRef('Position') }),
  };
};

/** The parameter's schema from the rule RouteParametersPipe enforces; a parameter without one is a problem. */
const parameterSchema = (rules: Readonly<Record<string, ParameterRule>>, name: string, where: string, problems: string[]): JsonSchema => {
  const rule = Object.hasOwn(rules, name) ? rules[name] : undefined;
  if (rule === undefined) {
    problems.push(`${where}: ${name} has no rule in route-parameters.ts`);
    return { type: 'string' };
  }
  return { type: 'string', ...(rule.pattern === undefined ? {} : { pattern: rule.pattern }), description: `${rule.description}.` };
};

/** The route's parameters and body against its documentation: each described, none described that it does not take. */
const mismatches = (route: RouteInfo, doc: OperationDoc): string[] => {
  const key = routeKey(route);
  const taken = [...route.pathParameters, ...route.queryParameters];
  const described = Object.keys(doc.parameters ?? {});
  return [
    ...taken.filter((name) => !described.includes(name)).map((name) => `${key}: parameter ${name} is not described`),
    ...described
      .filter((name) => !taken.includes(name))
      .map((name) => `${key}: describes parameter ${name}, which the route does not take`),
    ...(route.hasBody === (doc.body !== undefined)
      ? []
      : [`${key}: ${route.hasBody ? 'takes a body that is not documented' : 'documents a body the route does not take'}`]),
  ];
};

const decoratorsFor = (route: RouteInfo, doc: OperationDoc, problems: string[]): MethodDecorator[] => {
  const key = routeKey(route);
  const schema = (rules: Readonly<Record<string, ParameterRule>>, name: string, where: string) =>
    parameterSchema(rules, name, `${key} ${where} parameter`, problems) as Record<string, unknown>;
  return [
    ApiOperation({
      operationId: doc.operationId,
      summary: doc.summary,
      ...(doc.description === undefined ? {} : { description: doc.description }),
    }),
    ApiTags(doc.tag),
    ...route.pathParameters.map((name) =>
      ApiParam({ name, required: true, description: doc.parameters?.[name], schema: schema(PATH_PARAMETERS, name, 'path') }),
    ),
    ...route.queryParameters.map((name) =>
      ApiQuery({ name, required: false, description: doc.parameters?.[name], schema: schema(QUERY_PARAMETERS, name, 'query') }),
    ),
    ...(doc.body === undefined ? [] : [ApiBody({ required: doc.body.required, schema: doc.body.schema as Record<string, unknown> })]),
    ApiResponse({
      status: route.status,
      description: doc.response.description,
      headers: successHeaders(route),
      ...(doc.response.schema === undefined ? {} : { schema: doc.response.schema }),
    }),
  ];
};

/** Handlers already decorated: decorators add to metadata, so each is applied once per process. */
const decorated = new WeakSet<object>();

/** Decorates every documented route; returns what does not match (routes without documentation, documentation without a route...). */
export const documentRoutes = (routes: readonly RouteInfo[]): string[] => {
  const problems: string[] = [];
  for (const route of routes) {
    const key = routeKey(route);
    const doc = Object.hasOwn(OPERATIONS, key) ? OPERATIONS[key] : undefined;
    if (doc === undefined) {
      problems.push(`${key} (${route.controller.name}.${route.handler}) is not documented`);
      continue;
    }
    problems.push(...mismatches(route, doc));
    const prototype = route.controller.prototype as object;
    const descriptor = Object.getOwnPropertyDescriptor(prototype, route.handler);
    const decorators = decoratorsFor(route, doc, problems);
    if (descriptor === undefined || decorated.has(descriptor.value as object)) continue;
    applyDecorators(...decorators)(prototype, route.handler, descriptor);
    decorated.add(descriptor.value as object);
  }
  const served = new Set(routes.map(routeKey));
  for (const key of Object.keys(OPERATIONS)) if (!served.has(key)) problems.push(`${key} is documented but Nest serves no such route`);
  return problems;
};
