import { Controller, Get } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../auth/access.decorators.js';
import { BoundedExpressAdapter } from '../common/http/bounded-express-adapter.js';
import { ProblemError } from '../common/problems/problem-error.js';

@ApiExcludeController()
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /** The process is alive. */
  @Get('healthz')
  @Public()
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /** The database answers and the service is not shutting down: 503 `unavailable` otherwise, within about two seconds. */
  @Get('readyz')
  @Public()
  @HealthCheck()
  ready() {
    const adapter = this.adapterHost.httpAdapter;
    if (adapter instanceof BoundedExpressAdapter && adapter.draining) throw new ProblemError('unavailable', 'The service is shutting down');
    return this.health.check([() => this.database.pingCheck('database', { timeout: 2000 })]);
  }
}
