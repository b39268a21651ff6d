/** A value as one cell: strings and numbers as they are, null and undefined empty, anything else as JSON. */
export const cell = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' ? `${value}` : JSON.stringify(value);
};

const NUMBER = /^-?\d+(\.\d+)?$/;
const SEPARATOR = '  ';

/** A line break or a tab inside a cell would break the row or its columns: each run of them becomes one space. */
const oneLine = (text: string): string => text.replace(/[\t\r\n\v\f]+/g, ' ');

/** A column whose cells are all numbers (empty ones aside) is right-aligned, so that digits line up. */
const numericColumns = (header: readonly string[], rows: readonly (readonly string[])[]): boolean[] =>
  header.map((_, i) => {
    const cells = rows.map((row) => row[i] ?? '').filter((text) => text !== '');
    return cells.length > 0 && cells.every((text) => NUMBER.test(text));
  });

/**
 * Columns padded to their widest cell and two spaces apart, numbers right-aligned, as `sreport` prints
 * them: the header, a rule of dashes, then each section's rows, another rule between sections (the
 * totals under the lines). Every row has every column, an empty cell as spaces.
 */
export const textTable = (header: readonly string[], sections: readonly (readonly (readonly unknown[])[])[]): string => {
  const texts = sections.map((rows) => rows.map((row) => header.map((_, i) => oneLine(cell(row[i])))));
  const all = texts.flat();
  const widths = header.map((name, i) => Math.max(name.length, ...all.map((row) => (row[i] as string).length)));
  const numeric = numericColumns(header, all);
  const render = (row: readonly string[]): string =>
    `${row
      .map((text, i) => (numeric[i] === true ? text.padStart(widths[i] as number) : text.padEnd(widths[i] as number)))
      .join(SEPARATOR)
      .trimEnd()}\n`;
  const rule = `${widths.map((width) => '-'.repeat(width)).join(SEPARATOR)}\n`;
  return [render(header), ...texts.flatMap((rows) => [rule, ...rows.map(render)])].join('');
};
