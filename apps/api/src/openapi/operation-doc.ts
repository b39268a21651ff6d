import type { JsonSchema } from './json-schema.js';

/**
 * What Nest's route metadata cannot say about each route: summaries, which DTO validates its body
 * and what it answers; route-decorators.ts turns each entry into @nestjs/swagger decorators on its
 * handler. Keyed by Nest's method and path; a route missing here and an entry without a route are
 * reported, and the e2e suite requires there be none.
 */
export interface OperationDoc {
  readonly operationId: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  /** Descriptions of the route's path and query parameters (names as in the route). */
  readonly parameters?: Readonly<Record<string, string>>;
  readonly body?: { readonly schema: JsonSchema; readonly required: boolean };
  readonly response: { readonly description: string; readonly schema?: JsonSchema };
  /** Error statuses beyond those every /v1 route can answer (400, 406, 500; 401 and 403 with authentication). */
  readonly errors?: readonly number[];
}
