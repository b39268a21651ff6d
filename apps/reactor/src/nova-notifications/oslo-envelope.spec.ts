import { describe, expect, it } from 'vitest';
import { novaTimestampToIso, parseNovaNotification } from './oslo-envelope.js';
import { enveloped, serviceUpdate } from './testing/nova-samples.js';

describe('parseNovaNotification', () => {
  it('unwraps the oslo envelope of a real service.update', () => {
    const parsed = parseNovaNotification(Buffer.from(enveloped(serviceUpdate)));
    expect(parsed).toEqual({
      ok: true,
      notification: {
        eventType: 'service.update',
        publisherId: 'nova-compute:fake-host-3',
        messageId: '44140e54-8d43-40d9-9001-dcddd406720c',
        occurredAt: '2026-11-22T03:01:05.399Z',
        payloadName: 'ServiceStatusPayload',
        data: serviceUpdate.payload['nova_object.data'],
      },
    });
  });

  it('reads a message sent without the envelope', () => {
    expect(parseNovaNotification(JSON.stringify(serviceUpdate))).toMatchObject({ ok: true, notification: { eventType: 'service.update' } });
  });

  it.each([
    ['not JSON', '{"oslo.version": "2.0", "oslo.mess', 'the body is not JSON'],
    ['a JSON array', '[1, 2]', 'the body is not a JSON object'],
    [
      'an envelope whose message is not a string',
      JSON.stringify({ 'oslo.version': '2.0', 'oslo.message': 42 }),
      'oslo.message is not a string',
    ],
    [
      'an envelope whose message is not JSON',
      JSON.stringify({ 'oslo.version': '2.0', 'oslo.message': 'nope{' }),
      'oslo.message is not a JSON object',
    ],
    ['a message without event_type', enveloped({ ...serviceUpdate, event_type: undefined }), 'event_type, message_id or timestamp missing'],
    ['a message without message_id', enveloped({ ...serviceUpdate, message_id: '' }), 'event_type, message_id or timestamp missing'],
    ['an unreadable timestamp', enveloped({ ...serviceUpdate, timestamp: 'yesterday' }), "unreadable timestamp 'yesterday'"],
    [
      'an unversioned payload',
      enveloped({ ...serviceUpdate, payload: { host: 'fake-host-3' } }),
      'service.update: the payload is not a versioned nova object',
    ],
  ])('refuses %s without throwing', (_what, body, reason) => {
    expect(parseNovaNotification(body)).toEqual({ ok: false, reason });
  });
});

describe('novaTimestampToIso', () => {
  it.each([
    ['2026-11-22 03:01:05.399207', '2026-11-22T03:01:05.399Z'],
    ['2026-11-22 03:01:05', '2026-11-22T03:01:05.000Z'],
    ['2026-11-22T03:01:05.4Z', '2026-11-22T03:01:05.400Z'],
    ['2026-11-22 03:01:05.399207+00:00', '2026-11-22T03:01:05.399Z'],
    ['2026-13-45 03:01:05', null],
    ['', null],
  ])('%s -> %s', (input, expected) => {
    expect(novaTimestampToIso(input)).toBe(expected);
  });
});
