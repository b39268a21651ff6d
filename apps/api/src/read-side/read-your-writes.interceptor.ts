import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { type Observable, from, switchMap } from 'rxjs';
import { ReadYourWrites } from './read-your-writes.js';

export const MIN_POSITION_HEADER = 'x-leasehold-min-position';

/**
 * Every read waits (bounded) until the read models include this process's last write, or the
 * position a client passes in `X-Leasehold-Min-Position` (from another API replica's
 * `X-Leasehold-Position`). A read served before that, on timeout, says so in `X-Leasehold-Stale`.
 */
@Injectable()
export class ReadYourWritesInterceptor implements NestInterceptor {
  constructor(@Inject(ReadYourWrites) private readonly consistency: ReadYourWrites) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    if (request.method !== 'GET') return next.handle();
    const asked = Number(request.header(MIN_POSITION_HEADER) ?? 0);
    const position = Math.max(this.consistency.lastWrite(), Number.isSafeInteger(asked) ? asked : 0);
    return from(this.consistency.waitFor(position)).pipe(
      switchMap((fresh) => {
        if (!fresh) http.getResponse<Response>().setHeader('X-Leasehold-Stale', 'true');
        return next.handle();
      }),
    );
  }
}
