/**
 * What no text Leasehold records may hold, whatever brought it: control characters (C0 with NUL,
 * DEL, C1) and lone UTF-16 surrogates. No field means anything by them, and a database, a terminal
 * or a client may choke on them long after they were accepted.
 */

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_BUT_JSON_WHITESPACE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const codePoint = (char: string): string => `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/** Why a string breaks the rules, or null when it does not; JSON text may keep JSON's own whitespace (tab, LF, CR). */
export const textProblem = (text: string, allowJsonWhitespace = false): string | null => {
  const control = (allowJsonWhitespace ? CONTROL_BUT_JSON_WHITESPACE : CONTROL).exec(text);
  if (control !== null) return `contains the control character ${codePoint(control[0])}`;
  const surrogate = LONE_SURROGATE.exec(text);
  return surrogate === null ? null : `contains a lone UTF-16 surrogate ${codePoint(surrogate[0])}`;
};
