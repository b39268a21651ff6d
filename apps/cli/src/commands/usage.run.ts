import { DomainError } from '#domain/index.js';
import { systemCaller } from '#application/caller.js';
import { GROUP_COLUMNS, type GroupBy } from '#application/usage/usage-groups.js';
import { UsageIndex } from '#application/usage/usage-index.js';
import { UsageQueries } from '#application/usage/usage.queries.js';
import { type CliContext, UsageError, writeOut } from '../cli-context.js';
import { cell, textTable } from '../text-table.js';

export type UsageFormat = 'json' | 'csv' | 'table';

export interface UsageOptions {
  readonly from: string;
  readonly to: string;
  readonly project?: string;
  readonly groupBy: GroupBy;
  readonly rateCard?: string;
  readonly asOfPosition?: number;
  readonly until?: string;
  readonly format: UsageFormat;
}

type Row = Readonly<Record<string, unknown>>;

/** Blazar's `YYYY-MM-DD HH:MM` (UTC, as the API and the `openstack` CLI write dates) becomes ISO 8601; ISO passes as it is. */
const isoOf = (value: string): string => (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/.test(value) ? `${value.replace(' ', 'T')}Z` : value);

/** RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled. */
const csvField = (value: unknown): string => {
  const text = cell(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

interface Report {
  readonly lines: readonly Row[];
  readonly totals: Row;
}

/**
 * The HTTP body gives a priced report's currency once, in its totals; a CSV line or a table row read
 * alone (a spreadsheet filter, a grep) must still say what its cost is counted in.
 */
const withCurrency = ({ lines, totals }: Report): Report =>
  totals['currency'] === undefined
    ? { lines, totals }
    : { lines: lines.map((line) => ({ ...line, currency: totals['currency'] })), totals };

/** The grouping's key columns first (the totals row's label goes under the first), even with no line. */
const columnsOf = ({ lines, totals }: Report, groupBy: GroupBy): string[] => [
  ...new Set([...GROUP_COLUMNS[groupBy], ...lines.flatMap((line) => Object.keys(line)), ...Object.keys(totals)]),
];

/** The lines' cells, then the totals' under the same columns, the group key's left empty but the first, which says `total`. */
const rowsOf = (report: Report, columns: readonly string[]): { readonly lines: unknown[][]; readonly total: unknown[] } => ({
  lines: report.lines.map((line) => columns.map((column) => line[column])),
  total: columns.map((column) => (column in report.totals ? report.totals[column] : column === columns[0] ? 'total' : null)),
});

const csv = (report: Report, groupBy: GroupBy): string => {
  const columns = columnsOf(report, groupBy);
  const { lines, total } = rowsOf(report, columns);
  return [columns, ...lines, total].map((row) => `${row.map(csvField).join(',')}\n`).join('');
};

const table = (report: Report, groupBy: GroupBy): string => {
  const columns = columnsOf(report, groupBy);
  const { lines, total } = rowsOf(report, columns);
  return textTable(columns, [lines, [total]]);
};

/** json is the HTTP body byte for byte (no indentation, no newline added), so it compares with what the API answered. */
const render = (usage: Report, format: UsageFormat, groupBy: GroupBy): string => {
  if (format === 'json') return JSON.stringify({ usage });
  return format === 'csv' ? csv(withCurrency(usage), groupBy) : table(withCurrency(usage), groupBy);
};

/** The work of `leasehold usage`, loaded only for it. */
export const runUsage = async (context: CliContext, options: UsageOptions): Promise<void> => {
  const store = await context.openStore();
  try {
    const queries = new UsageQueries(store, new UsageIndex(store));
    const { usage } = await queries
      .report(systemCaller('cli'), {
        start: isoOf(options.from),
        end: isoOf(options.to),
        projectId: options.project ?? null,
        groupBy: options.groupBy,
        rateCard: options.rateCard ?? null,
        asOfPosition: options.asOfPosition === undefined ? null : String(options.asOfPosition),
        until: options.until === undefined ? null : isoOf(options.until),
        now: new Date().toISOString(),
      })
      .catch((error: unknown) => {
        throw error instanceof DomainError ? new UsageError(error.message) : error;
      });
    await writeOut(context.stdout, render(usage as Report, options.format, options.groupBy));
  } finally {
    await store.close();
  }
};
