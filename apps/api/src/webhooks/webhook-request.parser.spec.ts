import { describe, expect, it } from 'vitest';
import { parseCreateWebhook } from './webhook-request.parser.js';

const valid = { url: 'https://hooks.example.com/a', event_types: ['lease.created'], secret: 'secret-0123456789abcdef' };

describe('parseCreateWebhook: unknown fields are refused, not ignored', () => {
  it.each([
    ['project_id', 'Unknown parameter project_id (webhooks: url, event_types, secret)'],
    ['Secret', 'Unknown parameter Secret (webhooks: url, event_types, secret)'],
    ['a b', 'Unknown parameter ["a b"] (webhooks: url, event_types, secret)'],
    ['x\u007f"y', 'Unknown parameter ["x\\u007f\\"y"] (webhooks: url, event_types, secret)'],
  ])('%j', (key, message) => {
    expect(() => parseCreateWebhook({ ...valid, [key]: 'project-b' })).toThrow(
      expect.objectContaining({ code: 'MALFORMED_PARAMETER', message }),
    );
  });

  it('takes the three fields it knows', () => {
    expect(parseCreateWebhook(valid)).toEqual({ url: valid.url, eventTypes: valid.event_types, secret: valid.secret });
  });
});
