import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor, SetMetadata } from '@nestjs/common';
import { JsonText } from '../http/json-text.js';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { headerOf, pathOf } from '../http/exchange.js';
import { type Observable, from, map, switchMap } from 'rxjs';
import type { ReadModelName } from '#read-model/index.js';
import { type AsOf, PointInTime } from './point-in-time.js';
import type { ReadPosition } from './read-position.js';
import { ReadYourWrites, type StaleMarker } from './read-your-writes.js';

export const MIN_POSITION_HEADER = 'x-leasehold-min-position';

const READS_FROM = 'leasehold:reads-from';
const ANSWERS_AS_OF = 'leasehold:answers-as-of';

/** The read models a route answers from: its reads wait for them and carry their staleness. */
export const ReadsFrom = (...names: readonly ReadModelName[]): MethodDecorator => SetMetadata(READS_FROM, names);

/** The route also answers as it would have at an earlier instant, given `as_of` (a Leasehold extension). */
export const AnswersAsOf = (): MethodDecorator => SetMetadata(ANSWERS_AS_OF, true);

declare module 'fastify' {
  interface FastifyRequest {
    /** The `as_of` the interceptor resolved. */
    leaseholdAsOf?: AsOf;
  }
  interface FastifyReply {
    /** The marker of a stale read, for the exception filter. */
    leaseholdStale?: StaleMarker;
  }
}

/** The `as_of` this request asked for, resolved by the interceptor; null for a live read. */
export const asOfOf = (request: FastifyRequest): AsOf | null => request.leaseholdAsOf ?? null;

/** Where a read answers from: live without `as_of`, else the position the interceptor resolved it to. */
export const readPositionOf = (request: FastifyRequest, asOf: string | undefined): ReadPosition => {
  if (asOf === undefined) return null;
  const resolved = asOfOf(request);
  // a programming error: the route takes as_of but is not marked @AnswersAsOf()
  if (resolved === null) throw new Error(`${request.method} ${pathOf(request)}: as_of given but not resolved`);
  return resolved;
};

/** The marker of the read this response answers, for the exception filter (a 404 from a stale read model is stale too). */
export const staleMarkerOf = (reply: FastifyReply): StaleMarker | null => reply.leaseholdStale ?? null;

/** `X-Leasehold-Stale` and the lag in headers; the same in the body's `stale` field. */
export const markStale = (reply: FastifyReply, body: unknown, stale: StaleMarker): unknown => {
  reply.header('X-Leasehold-Stale', 'true');
  reply.header('X-Leasehold-Lag-Positions', String(stale.lag_positions));
  reply.header('X-Leasehold-Lag-Seconds', String(stale.lag_seconds));
  reply.leaseholdStale = stale;
  if (body instanceof JsonText) return body.withField('stale', stale);
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? { ...body, stale } : body;
};

/**
 * Every read of a read model waits (bounded) until it includes this process's last write, or the
 * position a client passes in `X-Leasehold-Min-Position` (from another API replica's
 * `X-Leasehold-Position`). A read served before that, or from a read model stopped on an event,
 * says so (`markStale`).
 */
@Injectable()
export class ReadYourWritesInterceptor implements NestInterceptor {
  constructor(
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(PointInTime) private readonly pointInTime: PointInTime,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    // GraphQL's reads wait per operation (graphql/request-reads.ts)
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const names = this.reflector.get<readonly ReadModelName[] | undefined>(READS_FROM, context.getHandler());
    if (request.method !== 'GET' || names === undefined) return next.handle();
    const asked = Number(headerOf(request, MIN_POSITION_HEADER) ?? 0);
    const position = Math.max(this.consistency.lastWrite(), Number.isSafeInteger(asked) ? asked : 0);
    const response = http.getResponse<FastifyReply>();
    const asOf =
      this.reflector.get<boolean | undefined>(ANSWERS_AS_OF, context.getHandler()) === true
        ? (request.query as Record<string, unknown>).as_of
        : undefined;
    return from(asOf === undefined ? this.consistency.waitFor(names, position) : this.waitForAsOf(names, asOf, request)).pipe(
      switchMap((stale) => {
        if (stale !== null) markStale(response, null, stale);
        return next.handle().pipe(map((body: unknown) => (stale === null ? body : markStale(response, body, stale))));
      }),
    );
  }

  /** An `as_of` read needs the read models to have passed the position it maps to, not this process's last write. */
  private async waitForAsOf(names: readonly ReadModelName[], value: unknown, request: FastifyRequest): Promise<StaleMarker | null> {
    const asOf = await this.pointInTime.resolve(value);
    request.leaseholdAsOf = asOf;
    return this.consistency.waitFor(names, asOf.position, true);
  }
}
