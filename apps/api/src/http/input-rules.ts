import { type DomainError, invalid, textProblem } from '#domain/index.js';

/**
 * The one rule set every value that enters through the API obeys, wherever it sits (a body at any
 * depth, its keys, a query parameter): no control characters (C0 with NUL, DEL, C1), no lone
 * UTF-16 surrogates, no non-finite numbers. No Blazar field means anything by them, and a database,
 * a terminal or a client may choke on them long after the 201. The per-field rules (types, names,
 * bounds) live in the DTOs and request parsers.
 */
export { textProblem };

/**
 * Fields that hold JSON text (Blazar's property queries, Nova's `cpu_info`): a pretty-printed
 * document is still the same document, so JSON's own whitespace (tab, LF, CR) is allowed there.
 */
export const JSON_TEXT_FIELDS: ReadonlySet<string> = new Set(['hypervisor_properties', 'resource_properties', 'cpu_info']);

/** Deeper than any Blazar body (a lease's reservation's address list is 3 levels). */
export const MAX_DEPTH = 16;

/** Keys that name JavaScript's object internals: an object built from them by assignment, or a library walking it, may misbehave. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * What a message never prints as it is: what the rule set refuses (controls, lone surrogates), and the characters the rules let into
 * names but a terminal or a page does not show as themselves: format characters (bidi controls such as U+202E, which reorder the text
 * around them, zero-width characters, the BOM, tags) and line and paragraph separators.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;

const hex = (code: number, width: number): string => code.toString(16).padStart(width, '0');

/** The text with those characters escaped as Python's repr() would (`\x00`, `\u202e`, `\U000e0041`): safe to echo in a message. */
export const printable = (text: string): string =>
  text.replace(UNPRINTABLE, (char) => {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x100) return `\\x${hex(code, 2)}`;
    return code <= 0xffff ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`;
  });

export type FieldPath = readonly (string | number)[];

const PLAIN_KEY = /^[A-Za-z0-9_:-]+$/;

/** A JSON string literal with DEL and C1 escaped too (JSON.stringify escapes C0 and lone surrogates only). */
const quoted = (key: string): string =>
  JSON.stringify(key).replace(/[\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** `reservations[0].resource_properties`; a key that is not plain is quoted, escaped, in brackets. */
export const fieldName = (path: FieldPath): string =>
  path.reduce<string>((name, step) => {
    if (typeof step === 'number') return `${name}[${step}]`;
    if (PLAIN_KEY.test(step)) return name === '' ? step : `${name}.${step}`;
    return `${name}[${quoted(step)}]`;
  }, '');

export const malformedField = (path: FieldPath, why: string): DomainError =>
  invalid('MALFORMED_PARAMETER', path.length === 0 ? `Malformed request body (${why})` : `Malformed parameter ${fieldName(path)} (${why})`);

interface Pending {
  readonly value: unknown;
  readonly path: FieldPath;
}

const keyProblem = (key: string): string | null => {
  if (RESERVED_KEYS.has(key)) return 'a reserved name';
  const problem = textProblem(key);
  return problem === null ? null : `the name ${problem}`;
};

/** The children of an object or array, in document order; throws for a key that breaks the rules. */
const childrenOf = (value: object, path: FieldPath): Pending[] => {
  if (path.length >= MAX_DEPTH) throw malformedField(path, `nested more than ${MAX_DEPTH} levels deep`);
  if (Array.isArray(value)) return value.map((item: unknown, index) => ({ value: item, path: [...path, index] }));
  return Object.entries(value).map(([key, item]: [string, unknown]) => {
    const problem = keyProblem(key);
    if (problem !== null) throw malformedField([...path, key], problem);
    return { value: item, path: [...path, key] };
  });
};

/**
 * Checks a parsed JSON body (or query) and every key and value in it; throws a 400 naming the first
 * offending field. Iterative, so no body can exhaust the stack.
 */
export const checkInputTree = (root: unknown, base: FieldPath = [], textFields: ReadonlySet<string> = JSON_TEXT_FIELDS): void => {
  const pending: Pending[] = [{ value: root, path: base }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value === 'string') {
      const last = path[path.length - 1];
      const problem = textProblem(value, typeof last === 'string' && textFields.has(last));
      if (problem !== null) throw malformedField(path, problem);
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw malformedField(path, 'not a finite number');
    } else if (value !== null && typeof value === 'object') {
      pending.push(...childrenOf(value, path).reverse());
    }
  }
};
