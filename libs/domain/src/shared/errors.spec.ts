import { describe, expect, it } from 'vitest';
import { conflict, fieldError, invalidField, literal, renderMessage } from './errors.js';

const wire = (name: string): string => ({ memoryMb: 'memory_mb', requiredFloatingIps: 'required_floatingips' })[name] ?? name;

describe('message templates', () => {
  it("name fields in domain terms in the message, and in a transport's own terms when rendered", () => {
    const error = invalidField('MALFORMED_PARAMETER', 'Malformed parameter {field:memoryMb} (must be an integer >= 1)');
    expect(error.message).toBe('Malformed parameter memoryMb (must be an integer >= 1)');
    expect(renderMessage(error.template, wire)).toBe('Malformed parameter memory_mb (must be an integer >= 1)');
  });

  it('quote a value as it is, however much it looks like a placeholder', () => {
    for (const value of ['{field:memoryMb}', '{{field:memoryMb}', '{{{field:x}}}', '{field:}', '{"a": {"b": 1}}']) {
      const error = fieldError('X', 'invalid', `{field:requiredFloatingIps}: ${literal(value)} is no address`);
      expect(renderMessage(error.template, wire)).toBe(`required_floatingips: ${value} is no address`);
      expect(error.message).toBe(`requiredFloatingIps: ${value} is no address`);
    }
  });

  it('leave a plain message as it was written, braces and all', () => {
    const text = "Object with {'lease_id': '{field:memoryMb}'} not found";
    const error = conflict('X', text);
    expect(error.message).toBe(text);
    expect(renderMessage(error.template, wire)).toBe(text);
  });
});
