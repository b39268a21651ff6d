import { createHash } from 'node:crypto';
import type { PublicEvent } from '#application/outbound/public-event.js';
import type { BlazarNotification } from './lease-notifications.js';

/** oslo.messaging's message envelope 2.0 (oslo_messaging/_drivers/common.py `serialize_msg`). */
export interface OsloEnvelope {
  readonly 'oslo.version': '2.0';
  /** The message, JSON-encoded once more. */
  readonly 'oslo.message': string;
}

/**
 * A name-based UUID (RFC 4122 version 5 layout over SHA-1) of the event and the notification: the same
 * notification sent again after a crash carries the same message_id, so receivers can drop the copy.
 */
export const notificationMessageId = (eventId: string, eventType: string): string => {
  const bytes = createHash('sha1').update(`leasehold:${eventId}:${eventType}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/** Python's `str(datetime)`, as the Notifier stamps messages: microseconds only when there are some. */
export const osloTimestamp = (iso: string): string => {
  // not luxon: this runs once per notification, and the store records milliseconds at most
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) throw new Error(`not an ISO-8601 time: '${iso}'`);
  const utc = time.toISOString();
  const seconds = `${utc.slice(0, 10)} ${utc.slice(11, 19)}`;
  return time.getUTCMilliseconds() === 0 ? seconds : `${seconds}.${utc.slice(20, 23)}000`;
};

/**
 * The message a Notifier's `info()` would put on the wire (oslo_messaging/notify/notifier.py `_notify`,
 * then the amqp driver's `_add_unique_id` and `pack_context`). The timestamp is when the event was
 * recorded, not when it is sent, and `_unique_id` follows the message id, so a message sent again after
 * a crash is byte for byte the first one (oslo's notification listeners do not drop repeats themselves:
 * consumers dedupe by message_id). The context carries who caused the event, never a token.
 */
export const osloMessageOf = (event: PublicEvent, notification: BlazarNotification, publisherId: string): Record<string, unknown> => {
  const messageId = notificationMessageId(event.id, notification.eventType);
  return {
    message_id: messageId,
    publisher_id: publisherId,
    event_type: notification.eventType,
    priority: 'INFO',
    payload: notification.payload,
    timestamp: osloTimestamp(event.recorded_at),
    _unique_id: messageId.replaceAll('-', ''),
    _context_request_id: event.request_id,
    _context_global_request_id: event.correlation_id,
    _context_user_id: event.actor.user_id,
    _context_project_id: event.actor.project_id,
  };
};

export const osloEnvelopeOf = (event: PublicEvent, notification: BlazarNotification, publisherId: string): OsloEnvelope => ({
  'oslo.version': '2.0',
  'oslo.message': JSON.stringify(osloMessageOf(event, notification, publisherId)),
});
