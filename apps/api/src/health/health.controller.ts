import { Controller, Get, Inject, Res, ServiceUnavailableException } from '@nestjs/common';
import { type HealthCheckResult, HealthCheckService, type HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import type { Response } from '../http/exchange.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { describeError } from '#domain/index.js';

type Readiness = Awaited<ReturnType<ReadYourWrites['readiness']>> | { readonly ready: false; readonly error: string };

/** A failed check is terminus' 503 carrying the same result: read back, so the body says why in full. */
const resultOf = (error: unknown): HealthCheckResult => {
  if (error instanceof ServiceUnavailableException) return error.getResponse() as HealthCheckResult;
  throw error;
};

/**
 * Probes, served without a token like version discovery, through @nestjs/terminus: `/healthz` says
 * the process answers, `/readyz` whether its reads are right (503 while the log or the read models do
 * not answer, or a read model is stopped on an event or lagging behind). Terminus' `status`, `info` and
 * `details` (the checks `event_log` and `read_models`) come beside Leasehold's own fields, which
 * /readyz has always shown; terminus' `error` section is left out, `error` being the message of a
 * read side that does not answer.
 */
@Controller()
export class HealthController {
  constructor(
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(HealthCheckService) private readonly health: HealthCheckService,
    @Inject(HealthIndicatorService) private readonly indicators: HealthIndicatorService,
  ) {}

  @Get('healthz')
  async live(): Promise<{ status: string; service: 'api'; info: unknown; details: unknown }> {
    const { status, info, details } = await this.health.check([]);
    return { status, service: 'api', info, details };
  }

  @Get('readyz')
  async ready(@Res({ passthrough: true }) response: Response): Promise<Record<string, unknown>> {
    const readiness = await this.readiness();
    const { status, info, details } = await this.health
      .check([() => this.eventLog(readiness), () => this.readModels(readiness)])
      .catch(resultOf);
    if (!readiness.ready) response.status(503);
    return { service: 'api', ...readiness, status, info, details };
  }

  private async readiness(): Promise<Readiness> {
    try {
      return await this.consistency.readiness();
    } catch (error) {
      return { ready: false, error: describeError(error) };
    }
  }

  private eventLog(readiness: Readiness): HealthIndicatorResult {
    const check = this.indicators.check('event_log');
    return 'head' in readiness ? check.up({ head: readiness.head }) : check.down({ message: readiness.error });
  }

  private readModels(readiness: Readiness): HealthIndicatorResult {
    const check = this.indicators.check('read_models');
    if (!('read_models' in readiness)) return check.down({ message: readiness.error });
    const stopped = readiness.read_models.filter((model) => model.failure !== null).map((model) => model.name);
    const lagging = readiness.read_models.filter((model) => model.lagging === true).map((model) => model.name);
    return readiness.ready ? check.up({ stopped, lagging }) : check.down({ stopped, lagging });
  }
}
