import { describe, expect, it } from 'vitest';
import { preferredType } from './accept.js';

const TYPES = ['application/json', 'text/event-stream'];

describe('preferredType (Accept, as Express negotiated it)', () => {
  it.each([
    [undefined, 0],
    ['', 0],
    ['*/*', 0],
    ['text/event-stream', 1],
    ['application/json', 0],
    ['text/*', 1],
    ['text/event-stream, application/json', 1],
    ['application/json, text/event-stream', 0],
    ['application/json;q=0.5, text/event-stream', 1],
    ['text/event-stream;q=0.1, */*', 0],
    ['*/*;q=0.1, text/event-stream;q=0.5', 1],
    ['text/html', -1],
    ['text/event-stream;q=0', -1],
    ['TEXT/Event-Stream', 1],
  ])('%s -> %i', (accept, index) => {
    expect(preferredType(accept, TYPES)).toBe(index);
  });

  it('a more specific range decides over a wider one that names the same type', () => {
    expect(preferredType('text/*;q=1, text/event-stream;q=0', TYPES)).toBe(-1);
    expect(preferredType('*/*;q=0, application/json', TYPES)).toBe(0);
  });
});
