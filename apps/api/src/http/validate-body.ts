import { type ClassConstructor, plainToInstance } from 'class-transformer';
import { type ValidationError, validateSync } from 'class-validator';
import { invalid } from '../../../../libs/domain/src/index.js';

const firstMessage = (error: ValidationError): string => {
  const messages = Object.values(error.constraints ?? {});
  if (messages[0] !== undefined) return messages[0];
  const child = error.children?.[0];
  return child === undefined ? `Malformed parameter ${error.property}` : firstMessage(child);
};

export const requireObject = (body: unknown, what = 'request body'): Record<string, unknown> => {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('MALFORMED_BODY', `Malformed ${what}: a JSON object is required`);
  return body as Record<string, unknown>;
};

/**
 * Validates a JSON body against a class-validator DTO and reports the first failure in Blazar's
 * words (`Missing parameter name`, `Malformed parameter min`...). Unknown keys are ignored, as upstream does.
 */
export const validateBody = <T extends object>(dto: ClassConstructor<T>, body: unknown, what?: string): T => {
  const instance = plainToInstance(dto, requireObject(body, what), { enableImplicitConversion: false });
  const errors = validateSync(instance, { stopAtFirstError: true, forbidUnknownValues: false, whitelist: false });
  const first = errors[0];
  if (first !== undefined) throw invalid('VALIDATION_FAILED', firstMessage(first));
  return instance;
};
