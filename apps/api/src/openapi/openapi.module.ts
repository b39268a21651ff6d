import { type DynamicModule, type INestApplication, Logger, Module } from '@nestjs/common';
import type { AuthMode } from '../config.js';
import { buildOpenApiDocument } from './document.js';
import { OPENAPI_OPTIONS, OpenApiDocument, type OpenApiOptions } from './openapi-document.js';
import { OpenApiController } from './openapi.controller.js';
import { describeError } from '#domain/index.js';

/** The service's own OpenAPI 3.1 document (`/openapi.json`) and its interactive page (`/docs`). */
@Module({})
export class OpenApiModule {
  static forRoot(options: { readonly auth: AuthMode }): DynamicModule {
    return {
      module: OpenApiModule,
      controllers: [OpenApiController],
      providers: [{ provide: OPENAPI_OPTIONS, useValue: options satisfies OpenApiOptions }, OpenApiDocument],
    };
  }
}

/**
 * Gives the document its builder once the application is created (swagger reads its routes): it is
 * built at its first request, and the API serves on without it if that fails.
 */
export const publishOpenApiDocument = (app: INestApplication): void => {
  const logger = new Logger('openapi');
  const { auth } = app.get<OpenApiOptions>(OPENAPI_OPTIONS);
  app.get(OpenApiDocument).publish(() => {
    try {
      const { document, problems } = buildOpenApiDocument(app, auth);
      if (problems.length > 0) logger.warn(`OpenAPI document is incomplete: ${problems.join('; ')}`);
      return document;
    } catch (error) {
      logger.error(`OpenAPI document could not be built: ${describeError(error, { stack: true })}`);
      throw error;
    }
  });
};
