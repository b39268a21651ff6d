import { describe, expect, it } from 'vitest';
import { DomainError } from '#domain/shared/errors.js';
import type { HostColumns, HostSnapshot } from '../physical-host/host-snapshot.js';
import {
  EMPTY_QUERY,
  type HostQuery,
  type QueryCondition,
  combineQueries,
  matchesHost,
  parseQuery,
  referencedProperties,
} from './blazar-query.js';

const cond = (field: string, op: QueryCondition['op'], value: string): QueryCondition => ({ field, op, value });
const query = (...conditions: QueryCondition[]): HostQuery => ({ conditions });

const COLUMNS: HostColumns = {
  id: '7',
  hypervisor_hostname: 'compute-7',
  service_name: 'compute-7.example',
  vcpus: 16,
  memory_mb: 8192,
  local_gb: 200,
  cpu_info: 'Intel Xeon',
  hypervisor_type: 'QEMU',
  hypervisor_version: 6002000,
  availability_zone: 'nova',
  status: null,
  trust_id: 'trust-1',
  reservable: true,
};

const host = (columns: Partial<HostColumns> = {}, capabilities: Record<string, string> = {}): HostSnapshot => ({
  id: columns.id ?? COLUMNS.id,
  columns: { ...COLUMNS, ...columns },
  capabilities,
  bookings: [],
  longestBookingMs: 0,
  maintenance: [],
});

const rejection = (text: string): DomainError => {
  try {
    parseQuery(text);
  } catch (error: unknown) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error(`parseQuery(${JSON.stringify(text)}) was accepted`);
};

describe('parseQuery accepts', () => {
  it.each([
    { name: 'an empty string', text: '', expected: [] },
    { name: 'JSON whitespace only', text: ' \n\t\r ', expected: [] },
    { name: 'an empty list', text: '[]', expected: [] },
    { name: 'an empty list with spaces', text: ' [ ] ', expected: [] },
    { name: '==', text: '["==", "$memory_mb", "4096"]', expected: [cond('memory_mb', '==', '4096')] },
    { name: '= (normalised to ==)', text: '["=", "$rack", "r1"]', expected: [cond('rack', '==', 'r1')] },
    { name: '!=', text: '["!=", "$rack", "r1"]', expected: [cond('rack', '!=', 'r1')] },
    { name: '>=', text: '[">=", "$memory_mb", "4096"]', expected: [cond('memory_mb', '>=', '4096')] },
    { name: '<=', text: '["<=", "$vcpus", "8"]', expected: [cond('vcpus', '<=', '8')] },
    { name: '>', text: '[">", "$local_gb", "100"]', expected: [cond('local_gb', '>', '100')] },
    { name: '<', text: '["<", "$gpus", "2"]', expected: [cond('gpus', '<', '2')] },
    { name: 'a value with spaces', text: '["==", "$cpu_info", "Intel Xeon"]', expected: [cond('cpu_info', '==', 'Intel Xeon')] },
    { name: 'the value "null"', text: '["==", "$status", "null"]', expected: [cond('status', '==', 'null')] },
    { name: 'escapes in the value', text: '["==", "$label", "caf\\u00e9 \\"x\\""]', expected: [cond('label', '==', 'café "x"')] },
    { name: 'and with one condition', text: '["and", ["<", "$vcpus", "8"]]', expected: [cond('vcpus', '<', '8')] },
    {
      name: 'and with several conditions',
      text: '["and", ["=", "$rack", "r1"], [">=", "$memory_mb", "4096"], ["!=", "$gpu", "none"]]',
      expected: [cond('rack', '==', 'r1'), cond('memory_mb', '>=', '4096'), cond('gpu', '!=', 'none')],
    },
    { name: 'pretty-printed JSON', text: '[\n  "and",\n  ["==", "$a", "1"]\n]\n', expected: [cond('a', '==', '1')] },
  ])('$name', ({ text, expected }) => {
    expect(parseQuery(text)).toEqual({ conditions: expected });
  });
});

describe('parseQuery rejects with MALFORMED_REQUIREMENTS, printing the value as upstream does', () => {
  it.each([
    { name: 'a number value (capture #20)', text: '[">=", "$memory_mb", 4096]', printed: "['>=', '$memory_mb', 4096]" },
    { name: 'a float value', text: '[">=", "$memory_mb", 4096.0]', printed: "['>=', '$memory_mb', 4096.0]" },
    { name: 'an exponent value', text: '[">=", "$memory_mb", 1e3]', printed: "['>=', '$memory_mb', 1000.0]" },
    { name: 'a true value', text: '["==", "$gpu", true]', printed: "['==', '$gpu', True]" },
    { name: 'a false value', text: '["==", "$gpu", false]', printed: "['==', '$gpu', False]" },
    { name: 'a null value', text: '["==", "$status", null]', printed: "['==', '$status', None]" },
    { name: 'an empty value', text: '["==", "$rack", ""]', printed: "['==', '$rack', '']" },
    { name: 'a field without $', text: '["==", "rack", "r1"]', printed: "['==', 'rack', 'r1']" },
    { name: 'a field that is only $', text: '["==", "$", "r1"]', printed: "['==', '$', 'r1']" },
    { name: 'a list as field', text: '["==", ["$rack"], "r1"]', printed: "['==', ['$rack'], 'r1']" },
    { name: 'an unknown operator', text: '["~", "$rack", "r1"]', printed: "['~', '$rack', 'r1']" },
    { name: 'the in operator', text: '["in", "$rack", "r1,r2"]', printed: "['in', '$rack', 'r1,r2']" },
    { name: 'two elements', text: '["==", "$rack"]', printed: "['==', '$rack']" },
    { name: 'four elements', text: '["==", "$rack", "r1", "r2"]', printed: "['==', '$rack', 'r1', 'r2']" },
    { name: 'a lone and', text: '["and"]', printed: "['and']" },
    { name: 'or', text: '["or", ["==", "$a", "1"], ["==", "$b", "2"]]', printed: "['or', ['==', '$a', '1'], ['==', '$b', '2']]" },
    { name: 'a nested and', text: '["and", ["and", ["==", "$a", "1"]]]', printed: "['and', ['and', ['==', '$a', '1']]]" },
    { name: 'and with a bare string', text: '["and", ["==", "$a", "1"], "x"]', printed: "['and', ['==', '$a', '1'], 'x']" },
    { name: 'and with a number value', text: '["and", ["==", "$a", 1]]', printed: "['and', ['==', '$a', 1]]" },
    { name: 'an object', text: '{"op": "==", "args": [1, 2.5]}', printed: "{'op': '==', 'args': [1, 2.5]}" },
    { name: 'an object with duplicate keys', text: '{"b": 1, "1": 2, "b": 3}', printed: "{'b': 3, '1': 2}" },
    { name: 'a JSON string (printed bare)', text: '"memory_mb >= 4096"', printed: 'memory_mb >= 4096' },
    { name: 'a JSON number', text: '4096', printed: '4096' },
    { name: 'JSON null', text: 'null', printed: 'None' },
    { name: 'JSON true', text: 'true', printed: 'True' },
    { name: 'NaN (Python accepts it)', text: '[">", "$a", NaN]', printed: "['>', '$a', nan]" },
    { name: '-Infinity (Python accepts it)', text: '[">", "$a", -Infinity]', printed: "['>', '$a', -inf]" },
  ])('$name', ({ text, printed }) => {
    const error = rejection(text);
    expect(error.code).toBe('MALFORMED_REQUIREMENTS');
    expect(error.kind).toBe('invalid');
    expect(error.message).toBe(`Malformed requirements ${printed}`);
  });

  it.each([
    { name: 'plain text', text: 'memory_mb >= 4096' },
    { name: 'an unterminated list', text: '[">=", "$memory_mb", "4096"' },
    { name: 'Python quotes', text: "['>=', '$memory_mb', '4096']" },
    { name: 'a trailing comma', text: '["==", "$a", "1",]' },
    { name: 'trailing data', text: '["==", "$a", "1"],' },
    { name: 'a leading zero', text: '01' },
    { name: 'a raw tab inside a string', text: '["==", "$a", "x\ty"]' },
    { name: 'a byte order mark', text: '\ufeff[]' },
    { name: 'a non-JSON space only', text: '\u00a0' },
  ])('$name: printed raw, as it is not JSON', ({ text }) => {
    expect(rejection(text).message).toBe(`Malformed requirements ${text}`);
  });

  it.each([
    { name: 'an apostrophe (double quotes)', json: '"it\'s"', printed: `"it's"` },
    { name: 'both quotes (escaped apostrophe)', json: '"it\'s \\"x\\""', printed: `'it\\'s "x"'` },
    { name: 'a backslash', json: '"a\\\\b"', printed: "'a\\\\b'" },
    { name: 'newline, tab, return', json: '"\\n\\t\\r"', printed: "'\\n\\t\\r'" },
    { name: 'control characters', json: '"\\u0000\\u001b\\u007f"', printed: "'\\x00\\x1b\\x7f'" },
    { name: 'printable non-ASCII', json: '"café 中 😀"', printed: "'café 中 😀'" },
    { name: 'non-printable non-ASCII', json: '"\\u00a0\\u00ad\\u2028"', printed: "'\\xa0\\xad\\u2028'" },
    { name: 'an astral format character', json: '"\\udb40\\udc01"', printed: "'\\U000e0001'" },
    { name: 'a lone surrogate', json: '"\\ud800"', printed: "'\\ud800'" },
    { name: 'a big integer, exactly', json: '123456789012345678901234567890', printed: '123456789012345678901234567890' },
    { name: 'minus zero integer', json: '-0', printed: '0' },
    { name: 'minus zero float', json: '-0.0', printed: '-0.0' },
    { name: 'a large float', json: '1e16', printed: '1e+16' },
    { name: 'the largest positional float', json: '1e15', printed: '1000000000000000.0' },
    { name: 'a small positional float', json: '0.0001', printed: '0.0001' },
    { name: 'a small float', json: '0.00001', printed: '1e-05' },
    { name: 'a float with a long mantissa', json: '1.5e-7', printed: '1.5e-07' },
    { name: 'an overflowing float', json: '1e400', printed: 'inf' },
  ])('$name', ({ json, printed }) => {
    expect(rejection(`[${json}]`).message).toBe(`Malformed requirements [${printed}]`);
  });
});

describe('matchesHost on columns', () => {
  it.each([
    { name: 'numeric ==', condition: cond('memory_mb', '==', '8192'), expected: true },
    { name: 'numeric compares by value, not text', condition: cond('memory_mb', '>=', '10000'), expected: false },
    { name: 'numeric > with a smaller value', condition: cond('vcpus', '>', '9'), expected: true },
    { name: 'numeric < at the boundary', condition: cond('vcpus', '<', '16'), expected: false },
    { name: 'numeric <= at the boundary', condition: cond('vcpus', '<=', '16'), expected: true },
    { name: 'numeric with a decimal value', condition: cond('local_gb', '<', '200.5'), expected: true },
    { name: 'numeric with spaces around the value', condition: cond('local_gb', '==', ' 200 '), expected: true },
    { name: 'numeric against a non-number never matches', condition: cond('memory_mb', '!=', 'lots'), expected: false },
    { name: 'hypervisor_version is numeric', condition: cond('hypervisor_version', '>=', '6000000'), expected: true },
    { name: 'string ==', condition: cond('hypervisor_type', '==', 'QEMU'), expected: true },
    { name: 'string is case-sensitive', condition: cond('hypervisor_type', '==', 'qemu'), expected: false },
    { name: 'string !=', condition: cond('availability_zone', '!=', 'az2'), expected: true },
    { name: 'string ordering', condition: cond('hypervisor_hostname', '<', 'compute-8'), expected: true },
    { name: 'string compares as text', condition: cond('cpu_info', '>', 'Intel'), expected: true },
    { name: 'id compares numerically', condition: cond('id', '<', '10'), expected: true },
    { name: 'id equality', condition: cond('id', '==', '7'), expected: true },
    { name: 'reservable == true', condition: cond('reservable', '==', 'true'), expected: true },
    { name: 'reservable == True', condition: cond('reservable', '==', 'True'), expected: true },
    { name: 'reservable == 1', condition: cond('reservable', '==', '1'), expected: true },
    { name: 'reservable == false', condition: cond('reservable', '==', 'false'), expected: false },
    { name: 'reservable != 0', condition: cond('reservable', '!=', '0'), expected: true },
    { name: 'reservable against a non-boolean never matches', condition: cond('reservable', '==', 'yes'), expected: false },
    { name: 'null column == null', condition: cond('status', '==', 'null'), expected: true },
    { name: 'null column != null', condition: cond('status', '!=', 'null'), expected: false },
    { name: 'null column compared with a value', condition: cond('status', '!=', 'up'), expected: false },
    { name: 'set column == null', condition: cond('trust_id', '==', 'null'), expected: false },
    { name: 'set column != null', condition: cond('trust_id', '!=', 'null'), expected: true },
    { name: 'ordering against null', condition: cond('trust_id', '>=', 'null'), expected: false },
  ])('$name -> $expected', ({ condition, expected }) => {
    expect(matchesHost(query(condition), host())).toBe(expected);
  });
});

describe('matchesHost on extra capabilities', () => {
  const capabilities = { rack: 'r1', gpus: '10', ram_gb: '64.0', label: 'node10', flag: 'null' };
  it.each([
    { name: 'string ==', condition: cond('rack', '==', 'r1'), expected: true },
    { name: 'string !=', condition: cond('rack', '!=', 'r1'), expected: false },
    { name: 'string ordering', condition: cond('rack', '<', 'r2'), expected: true },
    { name: 'numeric when both are numbers: 10 > 9 (upstream: false)', condition: cond('gpus', '>', '9'), expected: true },
    { name: 'numeric equality across notations', condition: cond('ram_gb', '==', '64'), expected: true },
    { name: 'numeric equality with an exponent', condition: cond('gpus', '==', '1e1'), expected: true },
    { name: 'text when one side is not a number', condition: cond('label', '>', 'node9'), expected: false },
    { name: 'text when the value is not a number', condition: cond('gpus', '<', 'x'), expected: true },
    { name: '"null" is just text for capabilities', condition: cond('flag', '==', 'null'), expected: true },
    { name: 'a missing capability never matches ==', condition: cond('ssd', '==', 'yes'), expected: false },
    { name: 'a missing capability never matches !=', condition: cond('ssd', '!=', 'yes'), expected: false },
    { name: 'inherited object keys are not capabilities', condition: cond('constructor', '!=', 'x'), expected: false },
  ])('$name -> $expected', ({ condition, expected }) => {
    expect(matchesHost(query(condition), host({}, capabilities))).toBe(expected);
  });
});

describe('matchesHost with several conditions', () => {
  const gpuHost = host({ memory_mb: 4096 }, { gpu: 'a100' });
  it.each([
    { name: 'the empty query matches every host', q: EMPTY_QUERY, expected: true },
    { name: 'all hold', q: query(cond('memory_mb', '>=', '4096'), cond('gpu', '==', 'a100')), expected: true },
    { name: 'one fails', q: query(cond('memory_mb', '>=', '4096'), cond('gpu', '==', 'h100')), expected: false },
    { name: 'parsed and-form', q: parseQuery('["and", [">=", "$memory_mb", "4096"], ["=", "$gpu", "a100"]]'), expected: true },
  ])('$name -> $expected', ({ q, expected }) => {
    expect(matchesHost(q, gpuHost)).toBe(expected);
  });
});

describe('combineQueries', () => {
  it('concatenates hypervisor_properties and resource_properties (AND)', () => {
    const hypervisor = parseQuery('[">=", "$memory_mb", "4096"]');
    const resource = parseQuery('["=", "$rack", "r1"]');
    expect(combineQueries(hypervisor, resource)).toEqual(query(cond('memory_mb', '>=', '4096'), cond('rack', '==', 'r1')));
  });

  it.each([
    { name: 'rack matches, memory too small', host: host({ memory_mb: 2048 }, { rack: 'r1' }), expected: false },
    { name: 'memory fits, other rack', host: host({ memory_mb: 8192 }, { rack: 'r2' }), expected: false },
    { name: 'both hold', host: host({ memory_mb: 8192 }, { rack: 'r1' }), expected: true },
  ])('the combination requires both: $name -> $expected', ({ host: candidate, expected }) => {
    const combined = combineQueries(parseQuery('[">=", "$memory_mb", "4096"]'), parseQuery('["=", "$rack", "r1"]'));
    expect(matchesHost(combined, candidate)).toBe(expected);
  });

  it('with empty queries on either side is the other query', () => {
    const q = parseQuery('["=", "$rack", "r1"]');
    expect(combineQueries(parseQuery(''), q)).toEqual(q);
    expect(combineQueries(q, parseQuery('[]'))).toEqual(q);
  });
});

describe('referencedProperties', () => {
  it.each([
    { name: 'none for the empty query', q: EMPTY_QUERY, expected: [] },
    { name: 'none for columns only', q: query(cond('memory_mb', '>=', '1'), cond('reservable', '==', 'true')), expected: [] },
    {
      name: 'capabilities only, in order',
      q: query(cond('rack', '==', 'r1'), cond('vcpus', '>', '1'), cond('gpu', '==', 'a')),
      expected: ['rack', 'gpu'],
    },
    { name: 'each name once', q: query(cond('gpus', '>', '1'), cond('gpus', '<', '4')), expected: ['gpus'] },
  ])('$name', ({ q, expected }) => {
    expect(referencedProperties(q)).toEqual(expected);
  });
});
