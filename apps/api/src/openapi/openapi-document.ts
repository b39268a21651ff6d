import { Injectable } from '@nestjs/common';
import type { AuthMode } from '../config.js';

export interface OpenApiOptions {
  readonly auth: AuthMode;
}

export const OPENAPI_OPTIONS = Symbol('OPENAPI_OPTIONS');

/** The document /openapi.json serves, published once the application is created. */
@Injectable()
export class OpenApiDocument {
  private published: Record<string, unknown> | null = null;

  publish(document: Record<string, unknown>): void {
    this.published = document;
  }

  get document(): Record<string, unknown> {
    if (this.published === null) throw new Error('The OpenAPI document is not available (see the start-up log)');
    return this.published;
  }
}
