/** How a domain error is meant to be reported; apps/api maps each kind to one HTTP status. */
export type DomainErrorKind = 'invalid' | 'not_found' | 'conflict' | 'forbidden' | 'unavailable';

export class DomainError extends Error {
  constructor(
    readonly code: string,
    readonly kind: DomainErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalid = (code: string, message: string): DomainError => new DomainError(code, 'invalid', message);
export const notFound = (code: string, message: string): DomainError => new DomainError(code, 'not_found', message);
export const conflict = (code: string, message: string): DomainError => new DomainError(code, 'conflict', message);
export const unavailable = (code: string, message: string): DomainError => new DomainError(code, 'unavailable', message);

export const isDomainError = (error: unknown): error is DomainError => error instanceof DomainError;
