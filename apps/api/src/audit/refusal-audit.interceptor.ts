import { type CallHandler, type ExecutionContext, Inject, Injectable, Logger, type NestInterceptor } from '@nestjs/common';
import { type Request, pathOf } from '../http/exchange.js';
import type { ContextCarrier } from '../http/request-context.js';
import { GqlExecutionContext } from '@nestjs/graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { type Observable, catchError, from, switchMap, throwError } from 'rxjs';
import { type DomainErrorKind, describeError, isDomainError } from '#domain/index.js';
import { WriteRefusals } from '#application/audit/write-refusals.js';
import type { RefusedLease } from '#application/audit/write-refused.events.js';
import { graphqlRefusedLease, restRefusedLease } from './refused-lease.js';
import { STATUS_BY_KIND } from '../http/blazar-error.js';
import { commandMetadata } from '../http/request-context.js';
import { OPERATIONS } from '../openapi/operations.js';
import { routeKey } from '../openapi/routes.js';
import { CLOCK } from '../tokens.js';
import type { GraphqlContext } from '../graphql/graphql-context.js';

interface RefusedCall {
  readonly request: ContextCarrier;
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  readonly lease: RefusedLease;
}

/** A REST write, by its route's operation id. */
const restCall = (request: Request): RefusedCall => {
  const route = request.routeOptions.url ?? pathOf(request);
  const operation = OPERATIONS[routeKey({ method: request.method, path: route })]?.operationId ?? route;
  return {
    request,
    operation,
    method: request.method,
    path: pathOf(request),
    lease: restRefusedLease(operation, request.params as Readonly<Record<string, unknown>>, request.body),
  };
};

/** A write refused after it was read: the policy's 403 (at the route or in the use case) and the rules' 409. */
const AUDITED: ReadonlySet<DomainErrorKind> = new Set(['forbidden', 'conflict']);

const READS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every write route's refusals go to the audit log, whichever layer decided them; the client gets
 * the same answer as before. An audit log that cannot be written is logged, never the client's error.
 */
@Injectable()
export class RefusalAuditInterceptor implements NestInterceptor {
  private readonly logger = new Logger('audit');

  constructor(
    @Inject(WriteRefusals) private readonly refusals: WriteRefusals,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const call = this.writeOf(context);
    if (call === null) return next.handle();
    return next.handle().pipe(catchError((error: unknown) => from(this.audit(call, error)).pipe(switchMap(() => throwError(() => error)))));
  }

  /** The write this handler is (a REST route other than a read, or a GraphQL mutation), or null for a read. */
  private writeOf(context: ExecutionContext): RefusedCall | null {
    if (context.getType<string>() === 'graphql') {
      const graphql = GqlExecutionContext.create(context);
      const info = graphql.getInfo<GraphQLResolveInfo>();
      if (info.parentType.name !== 'Mutation') return null;
      return {
        request: graphql.getContext<GraphqlContext>().req,
        operation: `graphql:${info.fieldName}`,
        method: 'POST',
        path: '/graphql',
        lease: graphqlRefusedLease(info.fieldName, graphql.getArgs<Record<string, unknown>>()),
      };
    }
    const request = context.switchToHttp().getRequest<Request>();
    return READS.has(request.method) ? null : restCall(request);
  }

  private async audit({ request, operation, method, path, lease }: RefusedCall, error: unknown): Promise<void> {
    if (!isDomainError(error) || !AUDITED.has(error.kind)) return;
    try {
      const refusal = { operation, method, path, status: STATUS_BY_KIND[error.kind], lease, error };
      await this.refusals.record(commandMetadata(request, this.clock()), refusal);
    } catch (failure) {
      this.logger.warn(`refused write not audited: ${describeError(failure)}`);
    }
  }
}
