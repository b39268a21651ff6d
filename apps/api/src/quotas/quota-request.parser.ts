import { MAX_QUOTA_LIMIT, type QuotaChanges, type QuotaName, invalid } from '#domain/index.js';
import { QUOTAS } from '#plugins/reservation-holdings.js';
import { refuseUnknownFields, requireObject } from '../http/validate-body.js';

const BY_FIELD: ReadonlyMap<string, QuotaName> = new Map(QUOTAS.dimensions.map(({ name, field }) => [field, name]));

const limit = (value: unknown, field: string): number | null => {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_QUOTA_LIMIT) {
    throw invalid(
      'MALFORMED_PARAMETER',
      `Malformed parameter ${field} (must be an integer from 0 to ${MAX_QUOTA_LIMIT}, or null for the default)`,
    );
  }
  return value;
};

/** PUT /v1/quotas/{project_id}: any of the quotas, each a limit or null (back to the default); nothing else. */
export const parseQuotaChanges = (raw: unknown): QuotaChanges => {
  const body = requireObject(raw);
  refuseUnknownFields(body, BY_FIELD.keys(), [], `quotas: ${[...BY_FIELD.keys()].join(', ')}`);
  if (Object.keys(body).length === 0)
    throw invalid('MISSING_PARAMETER', `Missing parameter: name at least one of ${[...BY_FIELD.keys()].join(', ')}`);
  const changes: Partial<Record<QuotaName, number | null>> = {};
  for (const [field, name] of BY_FIELD) if (Object.hasOwn(body, field)) changes[name] = limit(body[field], field);
  return changes;
};
