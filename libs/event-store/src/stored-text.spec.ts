import { describe, expect, it } from 'vitest';
import { decodeStoredText, encodeStoredText } from './stored-text.js';
import { HOSTILE_STRINGS } from './testing/hostile-strings.js';

/** What a UTF-8 driver stores: a lone surrogate would come back as U+FFFD. */
const survivesUtf8 = (text: string): boolean => Buffer.from(text, 'utf8').toString('utf8') === text;

/** Every string of up to `length` code units over the alphabet. */
const allStrings = (alphabet: readonly string[], length: number): string[] => {
  let level = [''];
  const all = [''];
  for (let n = 1; n <= length; n++) {
    level = level.flatMap((prefix) => alphabet.map((unit) => prefix + unit));
    all.push(...level);
  }
  return all;
};

// the encoder's own characters, its sequences' letters and both surrogate halves
const ALPHABET = ['\u0000', '\u0001', '0', '1', 'u', 'd', '8', 'a', '\ud800', '\udbff', '\udc00', '\udfff'];

describe('stored text encoding', () => {
  it('keeps text without NUL, U+0001 or surrogate halves as it is', () => {
    for (const text of ['', 'lease-1', 'it\'s \\ "x" ?', '\u007f\u0085\u009f', 'ü 🙂 \ud83d\ude42', '\ufffd\uffff']) {
      expect(encodeStoredText(text)).toBe(text);
      expect(decodeStoredText(text)).toBe(text);
    }
  });

  it('round-trips, is injective and leaves no NUL or lone surrogate, for every string of up to 4 units over its alphabet', () => {
    const texts = allStrings(ALPHABET, 4);
    const encoded = texts.map(encodeStoredText);
    expect(new Set(encoded).size).toBe(texts.length);
    texts.forEach((text, index) => {
      const stored = encoded[index] ?? '';
      expect(decodeStoredText(stored)).toBe(text);
      expect(stored).not.toContain('\u0000');
      expect(survivesUtf8(stored)).toBe(true);
    });
  });

  it.each(HOSTILE_STRINGS)('round-trips $label through UTF-8', ({ value }) => {
    const stored = Buffer.from(encodeStoredText(value), 'utf8').toString('utf8');
    expect(stored).not.toContain('\u0000');
    expect(decodeStoredText(stored)).toBe(value);
  });

  it('writes the sequences it documents', () => {
    expect(encodeStoredText('a\u0000b\u0001c\udfff\ud800\ud83d\ude42')).toBe('a\u00010b\u00011c\u0001udfff\u0001ud800\ud83d\ude42');
  });

  it('leaves anything that is not one of its sequences as it is when decoding', () => {
    for (const text of ['\u0001', '\u0001x', '\u0001u', '\u0001u00', '\u0001u0041', '\u0001uD800', '\u0001ue000']) {
      expect(decodeStoredText(text)).toBe(text);
    }
  });
});
