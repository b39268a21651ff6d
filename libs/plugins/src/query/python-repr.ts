import type { JsonValue } from './json-value.js';

/** Renders a parsed JSON value as Python 3's `repr()` of what `json.loads` would have returned. */
export const pythonRepr = (value: JsonValue): string => {
  switch (value.kind) {
    case 'string':
      return reprString(value.value);
    case 'integer':
      return BigInt(value.digits).toString();
    case 'float':
      return reprFloat(value.value);
    case 'boolean':
      return value.value ? 'True' : 'False';
    case 'null':
      return 'None';
    case 'array':
      return `[${value.items.map(pythonRepr).join(', ')}]`;
    case 'object':
      return `{${value.entries.map(([key, item]) => `${reprString(key)}: ${pythonRepr(item)}`).join(', ')}}`;
    default: {
      const _never: never = value;
      return _never;
    }
  }
};

/** Python's `str()`: like repr, except a top-level string is printed bare (as `'%s' % value` does). */
export const pythonStr = (value: JsonValue): string => (value.kind === 'string' ? value.value : pythonRepr(value));

const reprString = (text: string): string => {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let body = '';
  for (const char of text) body += escapeChar(char, quote);
  return quote + body + quote;
};

const NAMED_ESCAPES: ReadonlyMap<string, string> = new Map([
  ['\\', '\\\\'],
  ['\t', '\\t'],
  ['\n', '\\n'],
  ['\r', '\\r'],
]);

/** Python's str.isprintable(): everything but categories C* and Z* (the ASCII space excepted). */
const NOT_PRINTABLE = /^[\p{C}\p{Z}]$/u;

const escapeChar = (char: string, quote: string): string => {
  if (char === quote) return `\\${char}`;
  const named = NAMED_ESCAPES.get(char);
  if (named !== undefined) return named;
  if (char === ' ' || !NOT_PRINTABLE.test(char)) return char;
  const code = char.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${hex(code, 2)}`;
  return code <= 0xffff ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`;
};

const hex = (code: number, width: number): string => code.toString(16).padStart(width, '0');

/** Shortest round-trip digits (as Python's repr), positional for exponents in [-4, 16). */
const reprFloat = (value: number): string => {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [, sign = '', first = '', rest = '', exponentText = '0'] = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(value.toExponential()) ?? [];
  const digits = first + rest;
  const exponent = Number(exponentText);
  return sign + (exponent < -4 || exponent >= 16 ? scientific(digits, exponent) : positional(digits, exponent));
};

const scientific = (digits: string, exponent: number): string => {
  const mantissa = digits.length === 1 ? digits : `${digits.slice(0, 1)}.${digits.slice(1)}`;
  return `${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
};

const positional = (digits: string, exponent: number): string => {
  if (exponent < 0) return `0.${'0'.repeat(-exponent - 1)}${digits}`;
  const integer = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  return `${integer}.${digits.slice(exponent + 1) || '0'}`;
};
