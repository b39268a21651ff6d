import { Option } from 'commander';
import { DomainError } from '#domain/index.js';
import { systemCaller } from '#application/caller.js';
import { UsageIndex } from '#application/usage/usage-index.js';
import { UsageQueries } from '#application/usage/usage.queries.js';
import { GROUP_BY, GROUP_COLUMNS, type GroupBy } from '#application/usage/usage-report.js';
import { UsageError, writeOut } from '../cli-context.js';
import { cell, textTable } from '../text-table.js';
import { type CliCommand, positionArgument } from './cli-command.js';

type Format = 'json' | 'csv' | 'table';

interface UsageOptions {
  readonly from: string;
  readonly to: string;
  readonly project?: string;
  readonly groupBy: GroupBy;
  readonly rateCard?: string;
  readonly asOfPosition?: number;
  readonly until?: string;
  readonly format: Format;
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
const render = (usage: Report, format: Format, groupBy: GroupBy): string => {
  if (format === 'json') return JSON.stringify({ usage });
  return format === 'csv' ? csv(withCurrency(usage), groupBy) : table(withCurrency(usage), groupBy);
};

/**
 * `leasehold usage --from --to`: the report GET /v1/usage gives an admin, computed from the service's
 * log directly (the same fold and rate cards), for auditors who bill from the data folder.
 */
export const usageCommand: CliCommand = {
  register(program, context) {
    program
      .command('usage')
      .description(
        'print a usage report (host, instance, vCPU, memory, disk, floating-IP and network segment hours), as GET /v1/usage answers an admin',
      )
      .requiredOption('--from <date>', "window start, inclusive: 'YYYY-MM-DD HH:MM' (UTC) or ISO 8601")
      .requiredOption('--to <date>', 'window end, exclusive; same forms')
      .option('--project <project-id>', "only this project's usage (default: every project)")
      .addOption(new Option('--group-by <group>', 'one line per group and resource type').choices([...GROUP_BY]).default('project'))
      .option('--rate-card <name[:version]>', 'price with this rate card (the version in effect at --from, or the one named)')
      .option('--as-of-position <n>', 'compute at this log position, to reproduce an earlier report (default: the head)', positionArgument)
      .option('--until <date>', 'count running leases up to this instant, to reproduce an earlier report (default: now); same forms')
      .addOption(
        new Option('--format <format>', 'json: the HTTP body, byte for byte; csv: RFC 4180 with a totals row; table: aligned columns')
          .choices(['table', 'csv', 'json'])
          .default('table'),
      )
      .action(async (options: UsageOptions) => {
        const store = context.openStore();
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
      });
  },
};
