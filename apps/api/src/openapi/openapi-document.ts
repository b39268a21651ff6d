import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { AuthMode } from '../config.js';
import { type OpenApiResult, buildOpenApiDocument } from './document.js';
import { routesOf } from './routes.js';

export interface OpenApiModuleOptions {
  readonly auth: AuthMode;
  /** Controllers left out of the document (the document's own). */
  readonly exclude: readonly Function[];
}

export const OPENAPI_OPTIONS = Symbol('OPENAPI_OPTIONS');

/** Built once the application is up, from the controllers Nest actually registered. */
@Injectable()
export class OpenApiDocument implements OnApplicationBootstrap {
  private readonly logger = new Logger('openapi');
  private result: OpenApiResult | null = null;

  constructor(
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(OPENAPI_OPTIONS) private readonly options: OpenApiModuleOptions,
  ) {}

  onApplicationBootstrap(): void {
    try {
      const controllers = new Set(this.discovery.getControllers().map((wrapper) => wrapper.metatype));
      const documented = [...controllers].filter((c): c is Function => typeof c === 'function' && !this.options.exclude.includes(c));
      this.result = buildOpenApiDocument({ routes: routesOf(documented), auth: this.options.auth });
      if (this.result.problems.length > 0) this.logger.warn(`OpenAPI document is incomplete: ${this.result.problems.join('; ')}`);
    } catch (error) {
      // the API serves on without its document
      this.logger.error(`OpenAPI document could not be built: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }

  get document(): Record<string, unknown> {
    if (this.result === null) throw new Error('The OpenAPI document is not available (see the start-up log)');
    return this.result.document;
  }
}
