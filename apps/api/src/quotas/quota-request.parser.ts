import { MAX_QUOTA_LIMIT, QUOTA_FIELDS, QUOTA_NAMES, type QuotaChanges, type QuotaName, invalid } from '#domain/index.js';
import { refuseUnknownFields, requireObject } from '../http/validate-body.js';

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
  const byField = new Map(QUOTA_NAMES.map((name) => [QUOTA_FIELDS[name], name]));
  refuseUnknownFields(body, byField.keys(), [], `quotas: ${[...byField.keys()].join(', ')}`);
  if (Object.keys(body).length === 0)
    throw invalid('MISSING_PARAMETER', `Missing parameter: name at least one of ${[...byField.keys()].join(', ')}`);
  const changes: Partial<Record<QuotaName, number | null>> = {};
  for (const [field, name] of byField) if (Object.hasOwn(body, field)) changes[name] = limit(body[field], field);
  return changes;
};
