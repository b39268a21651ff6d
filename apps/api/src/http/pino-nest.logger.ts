import type { LoggerService } from '@nestjs/common';
import type { Level, Logger } from 'pino';

/**
 * Nest's own logs (start-up failures, the exception filter's errors, the OpenAPI document's
 * warnings) as JSON lines through pino, with the logging class's context. Nest passes the context
 * last, and an error's stack before it.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }

  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(level: Level, message: unknown, rest: readonly unknown[]): void {
    const strings = rest.filter((part): part is string => typeof part === 'string');
    const context = strings.at(-1);
    const stack = strings.length > 1 ? strings.at(-2) : undefined;
    const text =
      message instanceof Error ? (message.stack ?? message.message) : typeof message === 'string' ? message : JSON.stringify(message);
    this.logger[level]({ ...(context === undefined ? {} : { context }), ...(stack === undefined ? {} : { stack }) }, text);
  }
}
