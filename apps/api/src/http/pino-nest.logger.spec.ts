import { ConsoleLogger, Logger } from '@nestjs/common';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonLogger } from '#observability/logger.js';
import { PinoNestLogger } from './pino-nest.logger.js';

describe("PinoNestLogger: Nest's logs as JSON lines", () => {
  const lines: Record<string, unknown>[] = [];
  const destination = { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) };

  afterEach(() => {
    lines.length = 0;
    Logger.overrideLogger(new ConsoleLogger());
  });

  it("a Logger's error (as the exception filter logs a stack) comes out at level error with its context", () => {
    Logger.overrideLogger(new PinoNestLogger(jsonLogger({ app: 'api' }, destination)));
    new Logger('http').error('Error: boom\n    at somewhere');
    new Logger('openapi').warn('OpenAPI document is incomplete: x');
    expect(lines).toEqual([
      expect.objectContaining({ app: 'api', level: 50, context: 'http', msg: 'Error: boom\n    at somewhere' }),
      expect.objectContaining({ app: 'api', level: 40, context: 'openapi', msg: 'OpenAPI document is incomplete: x' }),
    ]);
  });

  it('keeps a stack given apart from the message, and prints an Error given as the message', () => {
    const logger = new PinoNestLogger(jsonLogger({ app: 'api' }, destination));
    logger.error('failed', 'Error: x\n    at y', 'ExceptionHandler');
    logger.error(new Error('thrown'));
    expect(lines[0]).toMatchObject({ level: 50, msg: 'failed', stack: 'Error: x\n    at y', context: 'ExceptionHandler' });
    expect(lines[1]).toMatchObject({ level: 50, msg: expect.stringMatching(/^Error: thrown\n/) });
  });
});
