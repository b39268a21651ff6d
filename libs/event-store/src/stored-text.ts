/**
 * A reversible text encoding for database columns, so that any JavaScript string reads back exactly.
 * PostgreSQL text cannot hold U+0000, and both drivers write a lone surrogate as bytes that come back
 * as U+FFFD. Those code units, and the escape character itself, become an escape sequence:
 *
 *   U+0000 -> ESC '0'    ESC -> ESC '1'    lone surrogate U+D800..U+DFFF -> ESC 'u' + 4 lowercase hex digits
 *
 * ESC is U+0001, a control character the API refuses in input: every string the API accepts is
 * stored unchanged (same bytes, same ordering, same index entries), only the refused classes are
 * rewritten. Encoding is injective; decoding leaves anything that is not one of its sequences as is.
 */
const ESC = '\u0001';

const ENCODED = /[\u0000\u0001]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const NEEDS_ENCODING = /[\u0000\u0001\ud800-\udfff]/;
const SEQUENCE = /\u0001(?:([01])|u(d[89a-f][0-9a-f]{2}))/g;

const escapeUnit = (unit: string): string => {
  if (unit === '\u0000') return `${ESC}0`;
  if (unit === ESC) return `${ESC}1`;
  return `${ESC}u${unit.charCodeAt(0).toString(16)}`;
};

const unescapeSequence = (_sequence: string, control: string | undefined, surrogate: string | undefined): string => {
  if (control !== undefined) return control === '0' ? '\u0000' : ESC;
  return String.fromCharCode(Number.parseInt(surrogate ?? '', 16));
};

export const encodeStoredText = (text: string): string => (NEEDS_ENCODING.test(text) ? text.replace(ENCODED, escapeUnit) : text);

export const decodeStoredText = (stored: string): string => (stored.includes(ESC) ? stored.replace(SEQUENCE, unescapeSequence) : stored);
