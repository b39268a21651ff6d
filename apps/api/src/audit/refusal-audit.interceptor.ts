import { type CallHandler, type ExecutionContext, Inject, Injectable, Logger, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { type Observable, catchError, from, switchMap, throwError } from 'rxjs';
import { type DomainErrorKind, describeError, isDomainError } from '#domain/index.js';
import { WriteRefusals } from '#application/audit/write-refusals.js';
import { STATUS_BY_KIND } from '../http/blazar-error.js';
import { commandMetadata } from '../http/request-context.js';
import { OPERATIONS } from '../openapi/operations.js';
import { routeKey } from '../openapi/routes.js';
import { CLOCK } from '../tokens.js';

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
    const request = context.switchToHttp().getRequest<Request>();
    if (READS.has(request.method)) return next.handle();
    return next.handle().pipe(catchError((error: unknown) => from(this.audit(request, error)).pipe(switchMap(() => throwError(() => error)))));
  }

  private async audit(request: Request, error: unknown): Promise<void> {
    if (!isDomainError(error) || !AUDITED.has(error.kind)) return;
    const route = (request.route as { path?: string } | undefined)?.path ?? request.path;
    const operation = OPERATIONS[routeKey({ method: request.method, path: route })]?.operationId ?? route;
    try {
      const refusal = { operation, method: request.method, path: request.path, status: STATUS_BY_KIND[error.kind], error };
      await this.refusals.record(commandMetadata(request, this.clock()), refusal);
    } catch (failure) {
      this.logger.warn(`refused write not audited: ${describeError(failure)}`);
    }
  }
}
