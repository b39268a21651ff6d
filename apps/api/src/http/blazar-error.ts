import type { DomainErrorKind } from '#domain/index.js';
import { printable } from './input-rules.js';

/** Blazar's error body; python-blazarclient prints `error_message`. */
export interface BlazarErrorBody {
  readonly error_code: number;
  readonly error_message: string;
  readonly error_name: number | string;
}

export const STATUS_BY_KIND: Readonly<Record<DomainErrorKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unavailable: 503,
};

/**
 * A message that quotes input (a value, a path, a library's words) never carries a character the input rules refuse; upstream names only
 * its internal errors, every other status (a 503 included) is its own name.
 */
export const blazarError = (status: number, message: string): BlazarErrorBody => ({
  error_code: status,
  error_message: printable(message),
  error_name: status === 500 ? 'INTERNAL_SERVER_ERROR' : status,
});
