import { describe, expect, it } from 'vitest';
import { OpenApiDocument } from './openapi-document.js';

describe('OpenApiDocument', () => {
  it('builds the document at its first read, not when the builder is published, and keeps it', () => {
    const document = new OpenApiDocument();
    let builds = 0;
    document.publish(() => ({ openapi: '3.1.0', build: ++builds }));
    expect(builds).toBe(0);
    const first = document.document;
    expect(first).toEqual({ openapi: '3.1.0', build: 1 });
    expect(document.document).toBe(first);
    expect(builds).toBe(1);
  });

  it('answers "not available" when the builder failed, without building again at each read', () => {
    const document = new OpenApiDocument();
    let builds = 0;
    document.publish(() => {
      builds++;
      throw new Error('a route swagger cannot read');
    });
    expect(() => document.document).toThrow('The OpenAPI document is not available');
    expect(() => document.document).toThrow('The OpenAPI document is not available');
    expect(builds).toBe(1);
  });

  it('answers "not available" before a builder is published', () => {
    expect(() => new OpenApiDocument().document).toThrow('The OpenAPI document is not available');
  });

  it('a builder published again is used at the next read', () => {
    const document = new OpenApiDocument();
    document.publish(() => ({ version: 1 }));
    expect(document.document).toEqual({ version: 1 });
    document.publish(() => ({ version: 2 }));
    expect(document.document).toEqual({ version: 2 });
  });
});
