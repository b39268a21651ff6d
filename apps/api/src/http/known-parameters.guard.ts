import { type CanActivate, type ExecutionContext, Injectable, Query, type Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import type { Request } from './exchange.js';
import { invalid } from '#domain/index.js';
import { fieldName } from './input-rules.js';

interface RouteArgument {
  readonly index: number;
  readonly data?: unknown;
}

/** The names a handler's `@Query('name')` arguments read, in argument order, from the decorator metadata Nest's router reads. */
export const queryParametersOf = (controller: Type, handler: string): string[] =>
  Object.entries((Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler) ?? {}) as Record<string, RouteArgument>)
    .filter(([key]) => key.split(':')[0] === String(RouteParamtypes.QUERY))
    .map(([, argument]) => argument)
    .sort((a, b) => a.index - b.index)
    .flatMap((argument) => (typeof argument.data === 'string' ? [argument.data] : []));

/**
 * `@Query(name)` for each of `names`, on the handler's arguments from index `from` on (a rest parameter): for a route whose
 * parameters come from a list (GET /v1/availability's, from the reservation types), as Nest's router and this guard read them.
 * Where the build records `design:paramtypes`, each is typed a string, as a declared `@Query(name) value?: string` is:
 * @nestjs/swagger types a parameter by them, and for a rest parameter they say Array.
 */
export const QueryParameters =
  (names: readonly string[], from: number): MethodDecorator =>
  (target, handler) => {
    // last to first, as TypeScript applies declared parameters' decorators: @nestjs/swagger lists them in that order reversed
    for (const [index, name] of [...names.entries()].reverse()) Query(name)(target, handler, from + index);
    const types = Reflect.getMetadata('design:paramtypes', target, handler) as unknown[] | undefined;
    if (types === undefined) return;
    const typed = [...types.slice(0, from), ...names.map(() => String)];
    Reflect.defineMetadata('design:paramtypes', typed, target, handler);
  };

/**
 * For Leasehold's own routes (`@UseGuards(KnownParameters)` on their controllers): a query parameter the route does not read is a
 * 400 naming it, before the policy and the handler, rather than ignored, so that a misspelt filter (`projectid`) or one the route
 * does not have never passes for an answer to it. Blazar's routes ignore unknown parameters, as upstream does.
 */
@Injectable()
export class KnownParameters implements CanActivate {
  private readonly known = new Map<string, ReadonlySet<string>>();

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    const unknown = Object.keys(request.query as object).find((name) => !this.knownTo(context).has(name));
    if (unknown !== undefined) throw invalid('UNKNOWN_PARAMETER', `Unknown parameter ${fieldName([unknown])}`);
    return true;
  }

  private knownTo(context: ExecutionContext): ReadonlySet<string> {
    const controller = context.getClass();
    const handler = context.getHandler().name;
    const key = `${controller.name}.${handler}`;
    let names = this.known.get(key);
    if (names === undefined) {
      names = new Set(queryParametersOf(controller, handler));
      this.known.set(key, names);
    }
    return names;
  }
}
