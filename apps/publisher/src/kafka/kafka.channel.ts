import { type IHeaders, Kafka, type Message, Partitioners, type Producer, logLevel } from 'kafkajs';
import type { PublicEvent } from '#application/outbound/public-event.js';
import type { OutboundChannel } from '../channel.js';
import { CLOUDEVENTS_CONTENT_TYPE, cloudEventOf, subjectPath } from '../cloud-event.js';
import type { KafkaChannelConfig } from './kafka.config.js';

/** Topic of an event: one per subject kind (`leasehold.leases`, `leasehold.hosts`, ...). */
export const kafkaTopic = (prefix: string, event: PublicEvent): string => `${prefix}.${subjectPath(event)}`;

/** Trace and actor travel as headers, so a consumer can route or filter without parsing the value. */
const headersOf = (event: PublicEvent): IHeaders => {
  const headers: Record<string, string> = {
    'content-type': CLOUDEVENTS_CONTENT_TYPE,
    correlation_id: event.correlation_id,
    causation_id: event.causation_id,
  };
  const optional = {
    request_id: event.request_id,
    actor_user_id: event.actor.user_id,
    actor_project_id: event.actor.project_id,
    actor_system: event.actor.system,
  };
  for (const [name, value] of Object.entries(optional)) if (value !== null) headers[name] = value;
  return headers;
};

export const kafkaMessageOf = (event: PublicEvent, source: string): Message => ({
  key: event.subject.id,
  value: JSON.stringify(cloudEventOf(event, source)),
  headers: headersOf(event),
});

/**
 * Publishes batches with kafkajs. Keyed by subject id, so Kafka keeps each lease's or resource's
 * events in order in one partition; one request in flight at a time, so a retried request cannot
 * overtake the next one. `publish` resolves when the cluster acknowledged every message with the
 * configured acks.
 */
export class KafkaChannel implements OutboundChannel {
  readonly name = 'kafka';
  private readonly producer: Producer;
  private connected = false;

  constructor(private readonly config: KafkaChannelConfig) {
    const kafka = new Kafka({ ...config.client, logLevel: logLevel.NOTHING });
    this.producer = kafka.producer({
      // murmur2 like the Java client's: other producers of the same keys pick the same partitions
      createPartitioner: Partitioners.DefaultPartitioner,
      allowAutoTopicCreation: true,
      maxInFlightRequests: 1,
      idempotent: config.idempotent,
    });
  }

  async publish(events: readonly PublicEvent[]): Promise<void> {
    if (!this.connected) {
      await this.producer.connect();
      this.connected = true;
    }
    const byTopic = new Map<string, Message[]>();
    for (const event of events) {
      const topic = kafkaTopic(this.config.topicPrefix, event);
      const messages = byTopic.get(topic) ?? [];
      messages.push(kafkaMessageOf(event, this.config.source));
      byTopic.set(topic, messages);
    }
    await this.producer.sendBatch({
      acks: this.config.acks,
      topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
    });
  }

  async close(): Promise<void> {
    if (this.connected) await this.producer.disconnect();
    this.connected = false;
  }
}
