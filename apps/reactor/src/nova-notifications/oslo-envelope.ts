/**
 * oslo.messaging's notification envelope: `{"oslo.version": "2.0", "oslo.message": "<json>"}`, whose
 * message carries `event_type`, `publisher_id`, `message_id`, `timestamp` and a versioned `payload`
 * (`nova_object.name` / `nova_object.data`). Old drivers send the message unwrapped; both are read.
 */
export interface NovaNotification {
  readonly eventType: string;
  readonly publisherId: string;
  readonly messageId: string;
  /** ISO-8601 UTC (Nova sends `2026-11-22 03:00:01.402083`, in UTC). */
  readonly occurredAt: string;
  readonly payloadName: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export type ParsedNotification =
  { readonly ok: true; readonly notification: NovaNotification } | { readonly ok: false; readonly reason: string };

type Json = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

const NOVA_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(?:Z|\+00:00)?$/;

/** Nova's UTC timestamp as ISO-8601 with milliseconds, or null. */
export const novaTimestampToIso = (value: string): string | null => {
  const match = NOVA_TIMESTAMP.exec(value);
  if (match === null) return null;
  const millis = (match[3] ?? '').padEnd(3, '0').slice(0, 3);
  const iso = `${match[1] ?? ''}T${match[2] ?? ''}.${millis}Z`;
  return Number.isNaN(Date.parse(iso)) ? null : iso;
};

const unwrap = (body: unknown): Json | string => {
  if (!isObject(body)) return 'the body is not a JSON object';
  if (!('oslo.message' in body)) return body;
  const inner = body['oslo.message'];
  if (typeof inner !== 'string') return 'oslo.message is not a string';
  const message = parseJson(inner);
  return isObject(message) ? message : 'oslo.message is not a JSON object';
};

const text = (message: Json, key: string): string | null => {
  const value = message[key];
  return typeof value === 'string' && value !== '' ? value : null;
};

/** Reads one AMQP body; never throws. */
export const parseNovaNotification = (body: Buffer | string): ParsedNotification => {
  const parsed = parseJson(typeof body === 'string' ? body : body.toString('utf8'));
  if (parsed === undefined) return { ok: false, reason: 'the body is not JSON' };
  const message = unwrap(parsed);
  if (typeof message === 'string') return { ok: false, reason: message };
  const eventType = text(message, 'event_type');
  const messageId = text(message, 'message_id');
  const timestamp = text(message, 'timestamp');
  const payload = message['payload'];
  if (eventType === null || messageId === null || timestamp === null)
    return { ok: false, reason: 'event_type, message_id or timestamp missing' };
  const occurredAt = novaTimestampToIso(timestamp);
  if (occurredAt === null) return { ok: false, reason: `unreadable timestamp '${timestamp}'` };
  if (!isObject(payload) || !isObject(payload['nova_object.data']) || typeof payload['nova_object.name'] !== 'string') {
    return { ok: false, reason: `${eventType}: the payload is not a versioned nova object` };
  }
  const publisherId = text(message, 'publisher_id') ?? '';
  return {
    ok: true,
    notification: {
      eventType,
      publisherId,
      messageId,
      occurredAt,
      payloadName: payload['nova_object.name'],
      data: payload['nova_object.data'],
    },
  };
};
