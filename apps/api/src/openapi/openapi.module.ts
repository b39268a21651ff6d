import { type DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { AuthMode } from '../config.js';
import { OPENAPI_OPTIONS, OpenApiDocument, type OpenApiModuleOptions } from './openapi-document.js';
import { OpenApiController } from './openapi.controller.js';

/** The service's own OpenAPI 3.1 document (`/openapi.json`) and its interactive page (`/docs`). */
@Module({})
export class OpenApiModule {
  static forRoot(options: { readonly auth: AuthMode }): DynamicModule {
    const moduleOptions: OpenApiModuleOptions = { auth: options.auth, exclude: [OpenApiController] };
    return {
      module: OpenApiModule,
      imports: [DiscoveryModule],
      controllers: [OpenApiController],
      providers: [{ provide: OPENAPI_OPTIONS, useValue: moduleOptions }, OpenApiDocument],
    };
  }
}
