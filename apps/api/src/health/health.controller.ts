import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { describeError } from '#domain/index.js';

/**
 * Probes, served without a token like version discovery: `/healthz` says the process answers,
 * `/readyz` whether its reads are right (503 while the log or the read models do not answer, or a
 * read model is stopped on an event or lagging behind).
 */
@Controller()
export class HealthController {
  constructor(@Inject(ReadYourWrites) private readonly consistency: ReadYourWrites) {}

  @Get('healthz')
  live(): { status: 'ok'; service: 'api' } {
    return { status: 'ok', service: 'api' };
  }

  @Get('readyz')
  async ready(@Res({ passthrough: true }) response: Response): Promise<Record<string, unknown>> {
    try {
      const readiness = await this.consistency.readiness();
      if (!readiness.ready) response.status(503);
      return { service: 'api', ...readiness };
    } catch (error) {
      response.status(503);
      return { service: 'api', ready: false, error: describeError(error) };
    }
  }
}
