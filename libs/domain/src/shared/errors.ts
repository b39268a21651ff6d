/** How a domain error is meant to be reported; apps/api maps each kind to one HTTP status. */
export type DomainErrorKind = 'invalid' | 'unauthenticated' | 'not_found' | 'conflict' | 'forbidden' | 'unavailable';

/** `{field:memoryMb}`: a field named in domain terms; `{{field:x}` (one brace more) is the literal text `{field:x}`. */
const FIELD_PLACEHOLDER = /\{(\{*)field:([A-Za-z][A-Za-z0-9]*)\}/g;

/** A template's text with every field named by `fieldName` (a transport's own names for the domain's). */
export const renderMessage = (template: string, fieldName: (name: string) => string): string =>
  template.replace(FIELD_PLACEHOLDER, (_, extra: string, name: string) => (extra === '' ? fieldName(name) : `${extra}field:${name}}`));

/** Text quoted into a template as it is (a value from the request): what looks like a placeholder is escaped. */
export const literal = (text: string): string =>
  text.replace(FIELD_PLACEHOLDER, (_, extra: string, name: string) => `{{${extra}field:${name}}`);

/**
 * A refusal with a stable code. `template` is the message with the fields it names as `{field:name}`
 * in domain terms, for each transport to render with its own field names; `message` names them in
 * domain terms. An error made from a plain message has no placeholders (its text is escaped).
 */
export class DomainError extends Error {
  readonly template: string;

  constructor(
    readonly code: string,
    readonly kind: DomainErrorKind,
    message: string,
    template: string = literal(message),
  ) {
    super(message);
    this.name = 'DomainError';
    this.template = template;
  }
}

export const invalid = (code: string, message: string): DomainError => new DomainError(code, 'invalid', message);
export const notFound = (code: string, message: string): DomainError => new DomainError(code, 'not_found', message);
export const conflict = (code: string, message: string): DomainError => new DomainError(code, 'conflict', message);
export const unavailable = (code: string, message: string): DomainError => new DomainError(code, 'unavailable', message);

/** An error whose message names fields: `invalidField('X', 'Malformed parameter {field:memoryMb}')`; quote values with `literal`. */
export const fieldError = (code: string, kind: DomainErrorKind, template: string): DomainError =>
  new DomainError(
    code,
    kind,
    renderMessage(template, (name) => name),
    template,
  );

export const invalidField = (code: string, template: string): DomainError => fieldError(code, 'invalid', template);
export const conflictField = (code: string, template: string): DomainError => fieldError(code, 'conflict', template);

export const isDomainError = (error: unknown): error is DomainError => error instanceof DomainError;

/** What to log or record of anything thrown: its message (with the stack when asked), never `[object Object]`. */
export const describeError = (error: unknown, options: { readonly stack?: boolean } = {}): string =>
  error instanceof Error ? ((options.stack === true ? error.stack : undefined) ?? error.message) : String(error);
