import { describe, expect, it } from 'vitest';
import { isDomainError } from '#domain/index.js';
import { parseJsonBody } from './input-boundary.js';

const JSON_TYPE = 'application/json';

const refusal = (body: string | Buffer, contentType = JSON_TYPE): string => {
  try {
    parseJsonBody(typeof body === 'string' ? Buffer.from(body) : body, contentType);
  } catch (error) {
    if (isDomainError(error)) return error.message;
    if (error instanceof Error) return `${error.constructor.name}: ${error.message}`;
  }
  throw new Error('not refused');
};

describe('parseJsonBody (the API reads JSON objects and arrays in UTF-8)', () => {
  it('reads objects and arrays, an empty body as an empty object, past a byte-order mark', () => {
    expect(parseJsonBody(Buffer.from('{"name": "h"}'), JSON_TYPE)).toEqual({ name: 'h' });
    expect(parseJsonBody(Buffer.from(' [1, 2]'), `${JSON_TYPE}; charset=utf-8`)).toEqual([1, 2]);
    expect(parseJsonBody(Buffer.alloc(0), JSON_TYPE)).toEqual({});
    expect(parseJsonBody(Buffer.from('\uFEFF{"a": 1}'), JSON_TYPE)).toEqual({ a: 1 });
  });

  it('refuses a bare value at its position, a syntax error at its position, and says so without quoting the body', () => {
    expect(refusal('  "text"')).toBe('Malformed request body (not valid JSON at position 2)');
    expect(refusal('12')).toBe('Malformed request body (not valid JSON at position 0)');
    expect(refusal('{"a" 1}')).toBe('Malformed request body (not valid JSON at position 5)');
    expect(refusal('{"name": }')).toBe('Malformed request body (not valid JSON)');
    expect(refusal('   ')).toBe('Malformed request body (not valid JSON)');
  });

  it('refuses bytes that are not UTF-8, and a charset it does not read', () => {
    expect(refusal(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]))).toBe('Malformed request body (not valid UTF-8)');
    expect(refusal('{}', `${JSON_TYPE}; charset=latin1`)).toBe('UnsupportedMediaTypeException: unsupported charset "LATIN1"');
  });
});
