import type { PublicEvent } from '#application/outbound/public-event.js';

/**
 * One outbound channel (Kafka; later oslo.messaging notifications, tenant webhooks). The publisher
 * hands it batches in log order and moves the channel's checkpoint past a batch only once `publish`
 * resolved, so `publish` must resolve only when the far side acknowledged every event of the batch,
 * and must keep the order of events with the same subject. It may throw after sending part of a batch:
 * the whole batch is sent again (at least once; receivers dedupe by event id).
 */
export interface OutboundChannel {
  /** Stable: it names the channel's checkpoint. */
  readonly name: string;
  publish(events: readonly PublicEvent[]): Promise<void>;
  /** Work of the channel's own beside publishing (the webhook channel's sender), started with the publisher. */
  start?(): void;
  /** The channel's own detail for /readyz (the webhook channel: its queue and failing receivers). */
  status?(): Promise<Readonly<Record<string, unknown>>>;
  close(): Promise<void>;
}
