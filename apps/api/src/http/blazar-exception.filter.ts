import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { describeError, isDomainError } from '#domain/index.js';
import { staleMarkerOf } from '../read-side/read-your-writes.interceptor.js';
import { CapacityRefused, requestDate } from '#application/availability/counter-offer.js';
import { STATUS_BY_KIND, blazarError } from './blazar-error.js';
import { wireMessage } from './wire-names.js';
import { graphqlError } from '../graphql/graphql-errors.js';
import { STORAGE_RETRY_AFTER_SECONDS, STORAGE_UNAVAILABLE_MESSAGE, isStorageUnavailable } from './storage-unavailable.js';

const httpMessage = (exception: HttpException): string => {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.map(String).join('; ');
  return typeof message === 'string' ? message : exception.message;
};

/** The one place where errors become HTTP: every error leaves in Blazar's body. */
@Catch()
export class BlazarExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(exception: unknown, host: ArgumentsHost): unknown {
    // a resolver's error: returned, GraphQL answers it in the operation's `errors`
    if (host.getType<string>() === 'graphql') return graphqlError(exception);
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const stale = staleMarkerOf(reply);
    const send = (status: number, message: string, extra: Record<string, unknown> = {}): void => {
      void reply
        .code(status)
        .send(stale === null ? { ...blazarError(status, message), ...extra } : { ...blazarError(status, message), ...extra, stale });
    };
    if (exception instanceof CapacityRefused) {
      const alternatives = exception.alternatives.map((w) => ({ start_date: requestDate(w.startDate), end_date: requestDate(w.endDate) }));
      send(STATUS_BY_KIND[exception.kind], wireMessage(exception), { alternatives });
      return;
    }
    if (isDomainError(exception)) {
      send(STATUS_BY_KIND[exception.kind], wireMessage(exception));
      return;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      send(status, status === 404 ? 'The resource could not be found.' : httpMessage(exception));
      return;
    }
    if (isStorageUnavailable(exception)) {
      // every write is one transaction: it rolled back, so the client may simply try again
      this.logger.warn(`storage unavailable: ${describeError(exception)}`);
      reply.header('Retry-After', String(STORAGE_RETRY_AFTER_SECONDS));
      send(503, STORAGE_UNAVAILABLE_MESSAGE);
      return;
    }
    this.logger.error(describeError(exception, { stack: true }));
    void reply.code(500).send(blazarError(500, 'Internal Server Error'));
  }
}
