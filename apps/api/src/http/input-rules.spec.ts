import { describe, expect, it } from 'vitest';
import { MAX_DEPTH, checkInputTree, fieldName, printable, textProblem } from './input-rules.js';
import { HOSTILE_TEXT, refusal } from './testing/request-tables.js';

describe('input rules: one rule set for every string that enters', () => {
  it.each(HOSTILE_TEXT)('refuses %s', (_name, text, why) => {
    expect(textProblem(text)).toBe(why);
  });

  it.each([
    ['plain ASCII', 'lease-1 (rack 4)'],
    ['letters beyond ASCII', 'Müller-Straße 5, 東京'],
    ['a surrogate pair (an emoji)', 'gpu \ud83d\ude80'],
    ['no-break and other Unicode spaces', 'a\u00a0b\u2003c'],
    ['U+00A0 right after the C1 range', '\u00a0'],
    ['the empty string (names check blankness themselves)', ''],
  ])('accepts %s', (_name, text) => {
    expect(textProblem(text)).toBeNull();
  });

  it('JSON text fields may hold JSON whitespace (tab, LF, CR), and nothing else of C0', () => {
    expect(textProblem('[\n\t"==", "$gpu", "true"\r\n]', true)).toBeNull();
    expect(textProblem('["==", "$gpu", "\u0000"]', true)).toBe('contains the control character U+0000');
    expect(textProblem('\u000b', true)).toBe('contains the control character U+000B');
    expect(textProblem('\u0085', true)).toBe('contains the control character U+0085');
  });

  it('names a field as upstream clients write it: dots for keys, brackets for indexes, quoted escapes for odd keys', () => {
    expect(fieldName(['reservations', 0, 'resource_properties'])).toBe('reservations[0].resource_properties');
    expect(fieldName(['flavor', 'os-flavor-access:is_public'])).toBe('flavor.os-flavor-access:is_public');
    expect(fieldName(['a b', 'x\u0000'])).toBe('["a b"]["x\\u0000"]');
    expect(fieldName(['\u007f\u0085', '\ud800'])).toBe('["\\u007f\\u0085"]["\\ud800"]');
    expect(fieldName([2, 'name'])).toBe('[2].name');
  });

  it('echoes refused characters the way Python prints them', () => {
    expect(printable('x\u0000y\u007f\u0085\ud800')).toBe('x\\x00y\\x7f\\x85\\ud800');
    expect(printable('ok \ud83d\ude80')).toBe('ok \ud83d\ude80');
  });

  it.each([
    ['right-to-left override', 'a\u202eb', 'a\\u202eb'],
    ['every bidi embedding and override', '\u202a\u202b\u202c\u202d', '\\u202a\\u202b\\u202c\\u202d'],
    ['bidi isolates', '\u2066\u2067\u2068\u2069', '\\u2066\\u2067\\u2068\\u2069'],
    ['bidi marks', '\u200e\u200f\u061c', '\\u200e\\u200f\\u061c'],
    ['zero-width characters and the BOM', '\u200b\u200d\u2060\ufeff', '\\u200b\\u200d\\u2060\\ufeff'],
    ['a soft hyphen', 'a\u00adb', 'a\\xadb'],
    ['line and paragraph separators', '\u2028\u2029', '\\u2028\\u2029'],
    ['interlinear annotation', '\ufff9\ufffb', '\\ufff9\\ufffb'],
    ['a format character beyond the BMP (a tag)', 'x\u{e0041}', 'x\\U000e0041'],
  ])('escapes %s (Unicode format and separator characters) as Python prints them', (_name, text, shown) => {
    expect(printable(text)).toBe(shown);
  });

  it('leaves visible text, spaces and letters of every script as they are', () => {
    expect(printable('Müller 東京 \u00a0\u3000 العربية \u05d0')).toBe('Müller 東京 \u00a0\u3000 العربية \u05d0');
  });
});

describe('checkInputTree: every key and value of a body, at any depth', () => {
  const refused = (body: unknown) => refusal(() => checkInputTree(body));

  it('names the field of a string value, however deep', () => {
    const body = {
      name: 'ok',
      reservations: [{ resource_type: 'physical:host' }, { resource_properties: '["==", "$x", "1"]', extra: ['a', 'b\u0000'] }],
    };
    expect(refused(body)).toEqual({
      status: 400,
      message: 'Malformed parameter reservations[1].extra[1] (contains the control character U+0000)',
    });
  });

  it('checks keys too, and refuses __proto__ as a key', () => {
    expect(refused({ flavor: { extra_specs: { 'hw:\u0007': 'x' } } })).toEqual({
      status: 400,
      message: 'Malformed parameter flavor.extra_specs["hw:\\u0007"] (the name contains the control character U+0007)',
    });
    expect(refused(JSON.parse('{"gpu": "true", "__proto__": {"polluted": "yes"}}'))).toEqual({
      status: 400,
      message: 'Malformed parameter __proto__ (a reserved name)',
    });
    expect(refused({ before_end_date: { constructor: { x: '5' } } }).message).toBe(
      'Malformed parameter before_end_date.constructor (a reserved name)',
    );
    expect(refused({ prototype: 1 }).message).toBe('Malformed parameter prototype (a reserved name)');
  });

  it('lets JSON whitespace through in JSON text fields only', () => {
    expect(() =>
      checkInputTree({
        reservations: [{ hypervisor_properties: '[\n  ">=", "$vcpus", "4"\n]', resource_properties: '\t' }],
        cpu_info: '{\n}',
      }),
    ).not.toThrow();
    expect(refused({ name: 'a\nb' }).message).toBe('Malformed parameter name (contains the control character U+000A)');
    expect(refused({ gpu: { resource_properties: 'a\u0000' } }).message).toBe(
      'Malformed parameter gpu.resource_properties (contains the control character U+0000)',
    );
  });

  it('refuses numbers that are not finite (JSON.parse makes 1e400 Infinity)', () => {
    expect(refused(JSON.parse('{"vcpus": 1e400}'))).toEqual({ status: 400, message: 'Malformed parameter vcpus (not a finite number)' });
    expect(refused({ amount: Number.NaN }).message).toBe('Malformed parameter amount (not a finite number)');
    expect(() => checkInputTree({ vcpus: 1e308, memory_mb: -0, ok: true, none: null })).not.toThrow();
  });

  it(`refuses nesting deeper than ${MAX_DEPTH} levels, without recursion`, () => {
    const shallow = JSON.parse(`${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}`) as unknown;
    expect(() => checkInputTree(shallow)).not.toThrow();
    const deep = JSON.parse(`${'['.repeat(50_000)}${']'.repeat(50_000)}`) as unknown;
    expect(refused(deep).message).toBe(`Malformed parameter ${'[0]'.repeat(MAX_DEPTH)} (nested more than ${MAX_DEPTH} levels deep)`);
  });

  it('reports the first offending field in document order', () => {
    expect(refused({ a: 'ok', b: ['\u0001', '\u0002'], c: '\u0003' }).message).toBe(
      'Malformed parameter b[0] (contains the control character U+0001)',
    );
  });

  it('checks a query the same way (a repeated parameter is an array)', () => {
    expect(refused({ lease_id: ['x', 'y\u0000'] }).message).toBe('Malformed parameter lease_id[1] (contains the control character U+0000)');
  });
});
