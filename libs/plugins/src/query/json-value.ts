/**
 * A JSON reader that keeps what Python's `json.loads` keeps and `JSON.parse` loses, so error
 * messages can echo a requirement exactly as upstream Blazar prints it: integers stay integers
 * (`4096` vs `4096.0`), object keys keep their insertion order (a duplicate keeps its first place
 * and its last value, like a Python dict), and NaN / Infinity / -Infinity are accepted.
 */
export type JsonValue =
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'integer'; readonly digits: string }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'null' }
  | { readonly kind: 'array'; readonly items: readonly JsonValue[] }
  | { readonly kind: 'object'; readonly entries: readonly (readonly [string, JsonValue])[] };

/** Python would hit its recursion limit long before; we refuse instead of overflowing the stack. */
const MAX_DEPTH = 500;

class JsonSyntaxError extends Error {}

interface Cursor {
  readonly text: string;
  pos: number;
}

/** Parses like Python's `json.loads` (strict mode); undefined when Python would raise. */
export const parseJson = (text: string): JsonValue | undefined => {
  const cursor: Cursor = { text, pos: 0 };
  try {
    const value = readValue(cursor, 0);
    skipWhitespace(cursor);
    return cursor.pos === text.length ? value : undefined;
  } catch (error: unknown) {
    if (error instanceof JsonSyntaxError) return undefined;
    throw error;
  }
};

const fail = (): never => {
  throw new JsonSyntaxError();
};

const skipWhitespace = (cursor: Cursor): void => {
  while (' \t\n\r'.includes(cursor.text[cursor.pos] ?? 'x')) cursor.pos++;
};

const expect = (cursor: Cursor, char: string): void => {
  if (cursor.text[cursor.pos] !== char) fail();
  cursor.pos++;
};

const readValue = (cursor: Cursor, depth: number): JsonValue => {
  if (depth > MAX_DEPTH) fail();
  skipWhitespace(cursor);
  switch (cursor.text[cursor.pos]) {
    case '"':
      return { kind: 'string', value: readString(cursor) };
    case '[':
      return readArray(cursor, depth + 1);
    case '{':
      return readObject(cursor, depth + 1);
    default:
      return readScalar(cursor);
  }
};

const readArray = (cursor: Cursor, depth: number): JsonValue => {
  expect(cursor, '[');
  skipWhitespace(cursor);
  const items: JsonValue[] = [];
  if (cursor.text[cursor.pos] === ']') {
    cursor.pos++;
    return { kind: 'array', items };
  }
  for (;;) {
    items.push(readValue(cursor, depth));
    skipWhitespace(cursor);
    if (cursor.text[cursor.pos] === ']') break;
    expect(cursor, ',');
  }
  cursor.pos++;
  return { kind: 'array', items };
};

const readObject = (cursor: Cursor, depth: number): JsonValue => {
  expect(cursor, '{');
  skipWhitespace(cursor);
  // A Map keeps a re-assigned key in its first position, exactly like a Python dict.
  const entries = new Map<string, JsonValue>();
  if (cursor.text[cursor.pos] !== '}') {
    for (;;) {
      const key = readString(cursor);
      skipWhitespace(cursor);
      expect(cursor, ':');
      entries.set(key, readValue(cursor, depth));
      skipWhitespace(cursor);
      if (cursor.text[cursor.pos] === '}') break;
      expect(cursor, ',');
      skipWhitespace(cursor);
    }
  }
  cursor.pos++;
  return { kind: 'object', entries: [...entries.entries()] };
};

const SIMPLE_ESCAPES: ReadonlyMap<string, string> = new Map([
  ['"', '"'],
  ['\\', '\\'],
  ['/', '/'],
  ['b', '\b'],
  ['f', '\f'],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
]);

const readString = (cursor: Cursor): string => {
  expect(cursor, '"');
  let value = '';
  for (;;) {
    const char = cursor.text[cursor.pos] ?? fail();
    cursor.pos++;
    if (char === '"') return value;
    if (char < ' ') fail();
    value += char === '\\' ? readEscape(cursor) : char;
  }
};

/** Surrogate pairs written as two \u escapes recombine by themselves: JS strings are UTF-16. */
const readEscape = (cursor: Cursor): string => {
  const char = cursor.text[cursor.pos] ?? fail();
  cursor.pos++;
  const simple = SIMPLE_ESCAPES.get(char);
  if (simple !== undefined) return simple;
  if (char !== 'u') return fail();
  const hex = cursor.text.slice(cursor.pos, cursor.pos + 4);
  if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail();
  cursor.pos += 4;
  return String.fromCharCode(Number.parseInt(hex, 16));
};

const LITERALS: readonly (readonly [string, JsonValue])[] = [
  ['null', { kind: 'null' }],
  ['true', { kind: 'boolean', value: true }],
  ['false', { kind: 'boolean', value: false }],
  ['NaN', { kind: 'float', value: Number.NaN }],
  ['Infinity', { kind: 'float', value: Number.POSITIVE_INFINITY }],
  ['-Infinity', { kind: 'float', value: Number.NEGATIVE_INFINITY }],
];

const NUMBER = /(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;

const readScalar = (cursor: Cursor): JsonValue => {
  NUMBER.lastIndex = cursor.pos;
  const number = NUMBER.exec(cursor.text);
  if (number !== null) {
    cursor.pos = NUMBER.lastIndex;
    const isInteger = number[2] === undefined && number[3] === undefined;
    return isInteger ? { kind: 'integer', digits: number[0] } : { kind: 'float', value: Number(number[0]) };
  }
  const literal = LITERALS.find(([word]) => cursor.text.startsWith(word, cursor.pos));
  if (literal === undefined) return fail();
  cursor.pos += literal[0].length;
  return literal[1];
};
