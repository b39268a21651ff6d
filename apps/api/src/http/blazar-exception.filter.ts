import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { isDomainError } from '../../../../libs/domain/src/index.js';
import { STATUS_BY_KIND, blazarError } from './blazar-error.js';

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

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (isDomainError(exception)) {
      const status = STATUS_BY_KIND[exception.kind];
      response.status(status).json(blazarError(status, exception.message));
      return;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const message = status === 404 ? 'The resource could not be found.' : httpMessage(exception);
      response.status(status).json(blazarError(status, message));
      return;
    }
    this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    response.status(500).json(blazarError(500, 'Internal Server Error'));
  }
}
