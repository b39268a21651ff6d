/**
 * Strings the API's input rules refuse, and strings that trouble SQL text, drivers or encodings. The
 * stores must take and give back every one of them exactly, so that a gap in validation can never
 * take the read side down. Each entry has a label for test names.
 */

const codeUnits = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => String.fromCharCode(from + i));

const C0 = codeUnits(0x00, 0x1f);
const C1 = codeUnits(0x80, 0x9f);
const hex = (text: string): string => [...text].map((c) => (c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')).join(' ');

/** Every class once, for a test that stores them all in one row. */
const MIX = ['a\u0000b', '\u0001', '\u007f', '\u0085', '\ud800', '\udfff', '\\', "'", '"', '?', '--', '\u00010', 'ü', '🙂'].join('|');

const classes: readonly (readonly [string, string])[] = [
  ...C0.map((c) => [`C0 U+${hex(c)}`, `x${c}y`] as const),
  ['NUL alone', '\u0000'],
  ['NUL at both ends', '\u0000name\u0000'],
  ['DEL', 'x\u007fy'],
  ...C1.map((c) => [`C1 U+${hex(c)}`, `x${c}y`] as const),
  ['lone high surrogate', 'x\ud800y'],
  ['lone high surrogate at the end', 'name\udbff'],
  ['lone low surrogate', 'x\udc00y'],
  ['lone low surrogate at the start', '\udfffname'],
  ['low then high surrogate', '\udc00\ud800'],
  ['high surrogate before a pair', '\ud800\ud83d\ude42'],
  ['pair then lone low surrogate', '\ud83d\ude42\ude42'],
  ['backslashes', 'a\\b\\\\c\\'],
  ['backslash escapes as text', "\\0 \\x00 \\u0000 \\n \\'"],
  ['single quotes', "it's ''quoted'''"],
  ['double quotes', '"name" ""'],
  ['SQL comment and statement', "x'); DROP TABLE lh_leases; --"],
  ['block comment', '/* x */ -- y'],
  ['question marks', '? ?? \\? ?1 $1 :name @p1'],
  ['percent and underscore', '100% _x_ %s %d'],
  ['the stores escape character and its sequences', '\u0001 \u00010 \u00011 \u0001ud800 \u0001u0041'],
  ['text that looks like an escape sequence', '\u0001x\u0001'],
  ['replacement character and BOM', '\ufffd\ufeff'],
  ['noncharacters', '\uffff\ufffe\ufdd0'],
  ['bidi and line separators', '\u202e\u2028\u2029'],
  ['JSON-looking text', '{"a":[1,"\\u0000"]}'],
  ['empty', ''],
  ['blank', ' \t\n '],
  ['very long', 'lease '.repeat(20_000)],
  ['very long hostile', `${MIX}\u0000`.repeat(2_000)],
  ['a mix', MIX],
];

export interface HostileString {
  readonly label: string;
  readonly value: string;
}

export const HOSTILE_STRINGS: readonly HostileString[] = classes.map(([label, value]) => ({ label, value }));
