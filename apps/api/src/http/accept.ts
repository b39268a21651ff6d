interface Range {
  readonly type: string;
  readonly subtype: string;
  readonly quality: number;
  readonly order: number;
}

const rangesOf = (accept: string): Range[] =>
  accept.split(',').flatMap((part, order) => {
    const [mediaRange = '', ...parameters] = part.split(';').map((text) => text.trim());
    const [type, subtype] = mediaRange.toLowerCase().split('/');
    if (type === undefined || subtype === undefined || type === '') return [];
    const q = parameters.find((parameter) => parameter.toLowerCase().startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    return Number.isFinite(quality) ? [{ type, subtype, quality, order }] : [];
  });

/** How closely a range names a type: exact 2, `type/*` 1, `*\/*` 0; -1 if it does not. */
const specificity = (range: Range, type: string, subtype: string): number => {
  if (range.type === type && range.subtype === subtype) return 2;
  if (range.type === type && range.subtype === '*') return 1;
  return range.type === '*' && range.subtype === '*' ? 0 : -1;
};

interface Preference {
  readonly quality: number;
  readonly specificity: number;
  readonly order: number;
}

/** The most specific range of `Accept` that names the type: its quality decides, as HTTP says. */
const preferenceOf = (ranges: readonly Range[], candidate: string): Preference | null => {
  const [type = '', subtype = ''] = candidate.split('/');
  let best: Preference | null = null;
  for (const range of ranges) {
    const level = specificity(range, type, subtype);
    if (level < 0 || (best !== null && level <= best.specificity)) continue;
    best = { quality: range.quality, specificity: level, order: range.order };
  }
  return best === null || best.quality <= 0 ? null : best;
};

const ranksAbove = (a: Preference, b: Preference): boolean =>
  a.quality !== b.quality ? a.quality > b.quality : a.specificity !== b.specificity ? a.specificity > b.specificity : a.order < b.order;

/**
 * Content negotiation over `Accept` as Express's `request.accepts(types)` answers it: the index of the type the client
 * prefers (its quality, then how specifically it was named, then its place in the header, then the order of `types`),
 * the first type without an `Accept`, or -1 when the client accepts none of them.
 */
export const preferredType = (accept: string | undefined, types: readonly string[]): number => {
  if (accept === undefined || accept.trim() === '') return types.length === 0 ? -1 : 0;
  const ranges = rangesOf(accept);
  let chosen = -1;
  let chosenPreference: Preference | null = null;
  for (const [index, type] of types.entries()) {
    const preference = preferenceOf(ranges, type.toLowerCase());
    if (preference !== null && (chosenPreference === null || ranksAbove(preference, chosenPreference))) {
      chosen = index;
      chosenPreference = preference;
    }
  }
  return chosen;
};
