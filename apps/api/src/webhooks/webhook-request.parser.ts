import { invalid } from '#domain/index.js';
import { parseWebhookUrl } from '#application/webhooks/webhook-targets.js';
import { type NewWebhook, WEBHOOK_EVENT_TYPES } from '#application/webhooks/webhook.use-cases.js';
import { fieldName } from '../http/input-rules.js';
import { requireObject } from '../http/validate-body.js';

export const MIN_SECRET_LENGTH = 16;
export const MAX_SECRET_LENGTH = 256;
const MAX_EVENT_TYPES = 64;
const FIELDS = ['url', 'event_types', 'secret'];

const missing = (name: string): never => {
  throw invalid('MISSING_PARAMETER', `Missing parameter ${name}`);
};
const malformed = (name: string, why: string): never => {
  throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${name} (${why})`);
};

const eventTypesOf = (value: unknown): string[] => {
  if (value === undefined || value === null) return missing('event_types');
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_EVENT_TYPES)
    return malformed('event_types', `a list of 1 to ${MAX_EVENT_TYPES} event types`);
  const types = value.map((type) =>
    typeof type === 'string' && (type === '*' || WEBHOOK_EVENT_TYPES.includes(type))
      ? type
      : malformed('event_types', `each must be * or a lease event type of docs/events.md, e.g. lease.created`),
  );
  return [...new Set(types)];
};

const secretOf = (value: unknown): string => {
  if (value === undefined || value === null) return missing('secret');
  if (
    typeof value !== 'string' ||
    value.length < MIN_SECRET_LENGTH ||
    value.length > MAX_SECRET_LENGTH ||
    /[\u0000-\u001f\u007f]/.test(value)
  ) {
    return malformed('secret', `a string of ${MIN_SECRET_LENGTH} to ${MAX_SECRET_LENGTH} printable characters`);
  }
  return value;
};

/** A field the route does not know (`project_id`: a webhook is always the caller's project's) is refused, not ignored. */
const refuseUnknown = (body: Readonly<Record<string, unknown>>): void => {
  const unknown = Object.keys(body).find((key) => !FIELDS.includes(key));
  if (unknown !== undefined)
    throw invalid('MALFORMED_PARAMETER', `Unknown parameter ${fieldName([unknown])} (webhooks: ${FIELDS.join(', ')})`);
};

/** POST /v1/webhooks: `{url, event_types, secret}`; the form of the URL here, its target by the use case. */
export const parseCreateWebhook = (raw: unknown): NewWebhook => {
  const body = requireObject(raw);
  refuseUnknown(body);
  if (body.url === undefined || body.url === null) missing('url');
  if (typeof body.url !== 'string') malformed('url', 'a string');
  const url = parseWebhookUrl(body.url as string).toString();
  return { url, eventTypes: eventTypesOf(body.event_types), secret: secretOf(body.secret) };
};
