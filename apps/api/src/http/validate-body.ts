import { type ValidationError, getMetadataStorage, validateSync } from 'class-validator';
import { invalid } from '#domain/index.js';
import { type FieldPath, fieldName } from './input-rules.js';

const firstMessage = (error: ValidationError): string => {
  const messages = Object.values(error.constraints ?? {});
  if (messages[0] !== undefined) return messages[0];
  const child = error.children?.[0];
  return child === undefined ? `Malformed parameter ${error.property}` : firstMessage(child);
};

export const requireObject = (body: unknown, what = 'request body'): Record<string, unknown> => {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw invalid('MALFORMED_BODY', `Malformed ${what}: a JSON object is required`);
  return body as Record<string, unknown>;
};

/**
 * The body's own fields on an instance of the DTO, as they are: no conversion, no walk into nested
 * values (class-transformer's plainToInstance crashes on a nested key named `constructor`), and no
 * assignment that a key such as `__proto__` could turn into a prototype change.
 */
const asInstance = <T extends object>(dto: new () => T, body: Record<string, unknown>): T => {
  const instance = Object.create(dto.prototype as object) as T;
  for (const [key, value] of Object.entries(body))
    Object.defineProperty(instance, key, { value, enumerable: true, writable: true, configurable: true });
  return instance;
};

/**
 * Validates a JSON body against a class-validator DTO and reports the first failure in Blazar's
 * words (`Missing parameter name`, `Malformed parameter min`...). Unknown keys are ignored, as upstream does.
 */
export const validateBody = <T extends object>(dto: new () => T, body: unknown, what?: string): T => {
  const instance = asInstance(dto, requireObject(body, what));
  const errors = validateSync(instance, { stopAtFirstError: true, forbidUnknownValues: false, whitelist: false });
  const first = errors[0];
  if (first !== undefined) throw invalid('VALIDATION_FAILED', firstMessage(first));
  return instance;
};

const declared = new WeakMap<object, ReadonlySet<string>>();

/** The fields a DTO declares: those class-validator validates (its OpenAPI schema lists the same). */
export const declaredFields = (dto: new () => object): ReadonlySet<string> => {
  let fields = declared.get(dto);
  if (fields === undefined) {
    fields = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(dto, '', false, false)
        .map((meta) => meta.propertyName),
    );
    declared.set(dto, fields);
  }
  return fields;
};

/**
 * The body of a Leasehold extension (an object at `at` in it) names only fields it knows: a client's typo or a field it believes
 * scopes the call (`project_id`) must not be ignored silently. Blazar's own routes ignore unknown keys, as upstream does.
 */
export const refuseUnknownFields = (
  body: Readonly<Record<string, unknown>>,
  known: Iterable<string>,
  at: FieldPath = [],
  why?: string,
): void => {
  const fields = new Set(known);
  const unknown = Object.keys(body).find((key) => !fields.has(key));
  if (unknown !== undefined) {
    throw invalid('UNKNOWN_PARAMETER', `Unknown parameter ${fieldName([...at, unknown])}${why === undefined ? '' : ` (${why})`}`);
  }
};

/** validateBody for an extension's body (at `at`): a key the DTO does not declare is refused first. */
export const validateExtensionBody = <T extends object>(dto: new () => T, body: unknown, at: FieldPath = [], what?: string): T => {
  const fields = requireObject(body, what);
  refuseUnknownFields(fields, declaredFields(dto), at);
  return validateBody(dto, fields, what);
};
