import { expect } from 'vitest';
import { STATUS_BY_KIND } from '../blazar-error.js';
import { isDomainError } from '#domain/index.js';
import { type FieldPath, checkInputTree, fieldName } from '../input-rules.js';
import { wireMessage } from '../wire-names.js';

/** What a request body meets in the running API: the input boundary first, then the route's parser. */
export const throughBoundary =
  <T>(parse: (body: unknown) => T) =>
  (body: unknown): T => {
    checkInputTree(body);
    return parse(body);
  };

/** Strings no field may hold, with the reason the boundary gives. */
export const HOSTILE_TEXT: readonly (readonly [string, string, string])[] = [
  ['NUL', 'x\u0000', 'contains the control character U+0000'],
  ['an escape sequence', '\u001b[2J', 'contains the control character U+001B'],
  ['a tab', 'a\tb', 'contains the control character U+0009'],
  ['a line feed', 'a\nb', 'contains the control character U+000A'],
  ['DEL', 'x\u007f', 'contains the control character U+007F'],
  ['C1 NEL', 'x\u0085', 'contains the control character U+0085'],
  ['C1 CSI', '\u009b31m', 'contains the control character U+009B'],
  ['a lone high surrogate', 'x\ud800', 'contains a lone UTF-16 surrogate U+D800'],
  ['a lone low surrogate', '\udfffx', 'contains a lone UTF-16 surrogate U+DFFF'],
  ['surrogates in the wrong order', '\ude00\ud83d', 'contains a lone UTF-16 surrogate U+DE00'],
];

/** One row of a field table: where, what is sent, the message expected. */
export type Row = readonly [FieldPath, unknown, string];

/** The boundary's refusal of each hostile string at `path`; a JSON text field keeps JSON's whitespace (tab, LF, CR). */
export const hostileText = (path: FieldPath, jsonText = false): Row[] =>
  HOSTILE_TEXT.filter(([, text]) => !jsonText || !/[\t\n\r]/.test(text)).map(
    ([, text, why]) => [path, text, `Malformed parameter ${fieldName(path)} (${why})`] as const,
  );

/** Rows as named cases for `it.each`: `$field = $shown`. */
export const cases = (rows: readonly Row[]) =>
  rows.map(([path, value, message]) => ({ field: fieldName(path), shown: JSON.stringify(value) ?? String(value), path, value, message }));

/** The status and message a request gets when `run` refuses it; fails when it is accepted or fails otherwise. */
export const refusal = (run: () => unknown): { readonly status: number; readonly message: string } => {
  try {
    run();
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return { status: STATUS_BY_KIND[error.kind], message: wireMessage(error) };
  }
  expect.fail('the request was accepted');
};

/** A body with `value` at `path` (keys and indexes), on a copy of `base`. */
export const withValue = (base: unknown, path: readonly (string | number)[], value: unknown): unknown => {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (typeof head === 'number' || Array.isArray(base)) {
    const items = Array.isArray(base) ? [...(base as unknown[])] : [];
    items[Number(head)] = withValue(items[Number(head)], rest, value);
    return items;
  }
  const fields = { ...(base as Record<string, unknown> | undefined) };
  fields[head] = withValue(fields[head], rest, value);
  return fields;
};
