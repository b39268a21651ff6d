import { Injectable } from '@nestjs/common';
import type { AuthMode } from '../config.js';

export interface OpenApiOptions {
  readonly auth: AuthMode;
}

export const OPENAPI_OPTIONS = Symbol('OPENAPI_OPTIONS');

type Built = { readonly document: Record<string, unknown> } | { readonly failure: unknown };

/**
 * The document /openapi.json serves: made on its first request from the builder published once the
 * application is created, then kept. Swagger's walk of every route and DTO is not paid at each start,
 * before the API may listen; a document that could not be made is not tried again at each request.
 */
@Injectable()
export class OpenApiDocument {
  private builder: (() => Record<string, unknown>) | null = null;
  private built: Built | null = null;

  publish(builder: () => Record<string, unknown>): void {
    this.builder = builder;
    this.built = null;
  }

  get document(): Record<string, unknown> {
    this.built ??= this.build();
    if ('failure' in this.built) throw new Error('The OpenAPI document is not available (see the log)');
    return this.built.document;
  }

  private build(): Built {
    if (this.builder === null) return { failure: null };
    try {
      return { document: this.builder() };
    } catch (failure) {
      return { failure };
    }
  }
}
