import { invalid } from '#domain/index.js';
import { refuseUnknownFields, requireObject } from '../http/validate-body.js';

/** PUT /v1/fair-share/{project_id}: `{"shares": <number>}`; the decider checks its range. */
export const parseShares = (raw: unknown): number => {
  const body = requireObject(raw);
  refuseUnknownFields(body, ['shares']);
  if (body.shares === undefined) throw invalid('MISSING_PARAMETER', 'Missing parameter shares');
  if (typeof body.shares !== 'number') throw invalid('MALFORMED_PARAMETER', 'Malformed parameter shares (must be a number)');
  return body.shares;
};
