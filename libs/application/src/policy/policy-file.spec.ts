import { describe, expect, it } from 'vitest';
import { parsePolicyDocument } from './policy-file.js';

describe('policy files', () => {
  it('reads JSON', () => {
    expect(parsePolicyDocument('{"blazar:leases:get": "rule:admin", "x": ""}')).toEqual({ 'blazar:leases:get': 'rule:admin', x: '' });
  });

  it('reads the YAML oslopolicy-sample-generator writes: quoted or plain, comments, blank lines', () => {
    const text = [
      '---',
      '# Policy rule for List/Show Lease(s) API.',
      '# GET  /{api_version}/leases',
      '#"blazar:leases:get": "rule:project_reader_or_admin"',
      '"blazar:leases:get": "rule:admin"',
      '',
      "'blazar:leases:post': 'role:member and project_id:%(project_id)s'  # members only",
      'blazar:leases:put: rule:admin or role:lease-manager',
      'blazar:leases:delete: "!"',
      "\"quote's\": 'it''s \"fine\"'",
      'empty: ""',
    ].join('\n');
    expect(parsePolicyDocument(text, 'p.yaml')).toEqual({
      'blazar:leases:get': 'rule:admin',
      'blazar:leases:post': 'role:member and project_id:%(project_id)s',
      'blazar:leases:put': 'rule:admin or role:lease-manager',
      'blazar:leases:delete': '!',
      "quote's": 'it\'s "fine"',
      empty: '',
    });
  });

  it('an empty file or {} changes nothing', () => {
    expect(parsePolicyDocument('')).toEqual({});
    expect(parsePolicyDocument('# only comments\n')).toEqual({});
    expect(parsePolicyDocument('{}')).toEqual({});
  });

  it.each([
    ['{"a": ["role:admin"]}', 'must be a string'],
    ['{"a": ', 'invalid JSON'],
    ['[1]', 'expected "name: rule"'],
    ['a:\n  b: c', 'line 1: rule "a" has no value'],
    ['a: x\n  b: c', 'line 2: nested values'],
    ['a: x\na: y', 'line 2: rule "a" is defined twice'],
    ['"a": "unterminated', 'unterminated quoted string'],
    ['"a" "b"', 'expected ":"'],
    ['a: [role:admin]', 'quote the rule'],
    ['a: "x" y', 'unexpected text after the rule'],
  ])('%j is refused: %s', (text, reason) => {
    expect(() => parsePolicyDocument(text, 'bad.yaml')).toThrow(reason);
  });
});
