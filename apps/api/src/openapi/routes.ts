import { RequestMethod, type Type } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { MetadataScanner } from '@nestjs/core';
import { queryParametersOf } from '../http/known-parameters.guard.js';

/** One route as Nest registers it, read from the same decorator metadata Nest's router reads. */
export interface RouteInfo {
  /** Lower-case HTTP method, as OpenAPI path items name them. */
  readonly method: string;
  /** Nest's form, e.g. `/v1/leases/:leaseId`. */
  readonly path: string;
  readonly controller: Type;
  readonly handler: string;
  /** `@HttpCode`, else Nest's default (201 for POST, 200 otherwise). */
  readonly status: number;
  readonly pathParameters: readonly string[];
  /** Names given to `@Query('name')`. */
  readonly queryParameters: readonly string[];
  /** Whether the handler takes `@Body()`. */
  readonly hasBody: boolean;
}

export const routeKey = (route: Pick<RouteInfo, 'method' | 'path'>): string => `${route.method.toUpperCase()} ${route.path}`;

/** Nest's path metadata: a path or a list of them (`'/'` when absent). */
const asArray = (value: unknown): string[] => (Array.isArray(value) ? (value as string[]) : [typeof value === 'string' ? value : '/']);

const joinPath = (...parts: string[]): string => {
  const segments = parts.flatMap((part) => part.split('/')).filter((segment) => segment !== '');
  return `/${segments.join('/')}`;
};

interface RouteArgument {
  readonly index: number;
  readonly data?: unknown;
}

/** Every route of these controllers (no global prefix or URI versioning is configured). */
export const routesOf = (controllers: readonly Type[]): RouteInfo[] => {
  const scanner = new MetadataScanner();
  const routes: RouteInfo[] = [];
  for (const controller of controllers) {
    const prototype = controller.prototype as Record<string, unknown>;
    for (const handler of scanner.getAllMethodNames(prototype)) {
      const fn = prototype[handler];
      if (typeof fn !== 'function' || Reflect.getMetadata(PATH_METADATA, fn) === undefined) continue;
      const requestMethod = (Reflect.getMetadata(METHOD_METADATA, fn) as RequestMethod | undefined) ?? RequestMethod.GET;
      const method = RequestMethod[requestMethod].toLowerCase();
      const declared = Reflect.getMetadata(HTTP_CODE_METADATA, fn) as number | undefined;
      const args = Object.entries((Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler) ?? {}) as Record<string, RouteArgument>);
      const ofType = (type: RouteParamtypes) =>
        args
          .filter(([key]) => key.split(':')[0] === String(type))
          .map(([, arg]) => arg)
          .sort((a, b) => a.index - b.index);
      const queryParameters = queryParametersOf(controller, handler);
      for (const base of asArray(Reflect.getMetadata(PATH_METADATA, controller))) {
        for (const sub of asArray(Reflect.getMetadata(PATH_METADATA, fn))) {
          const path = joinPath(base, sub);
          routes.push({
            method,
            path,
            controller,
            handler,
            status: declared ?? (requestMethod === RequestMethod.POST ? 201 : 200),
            pathParameters: [...path.matchAll(/:(\w+)/g)].map((match) => match[1] as string),
            queryParameters,
            hasBody: ofType(RouteParamtypes.BODY).length > 0,
          });
        }
      }
    }
  }
  return routes;
};

/** `/v1/leases/:leaseId` -> `/v1/leases/{leaseId}`. */
export const openApiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}');
