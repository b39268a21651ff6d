import { Option } from 'commander';
import { DomainError } from '#domain/index.js';
import { systemCaller } from '#application/caller.js';
import type { HistoryEntry } from '#application/history/history-entry.js';
import { HistoryQueries } from '#application/history/history.queries.js';
import { UsageError, writeOut } from '../cli-context.js';
import { resolveLease } from '../lease-lookup.js';
import { textTable } from '../text-table.js';
import type { CliCommand } from './cli-command.js';

const actorText = (entry: HistoryEntry): string => entry.actor.system ?? `${entry.actor.user_id ?? '-'}@${entry.actor.project_id ?? '-'}`;

const COLUMNS = ['position', 'recorded_at', 'type', 'actor', 'summary'];

const table = (entries: readonly HistoryEntry[]): string =>
  textTable(COLUMNS, [entries.map((e) => [e.position, e.recorded_at, e.type, actorText(e), e.summary])]);

/** json is the HTTP body byte for byte (no indentation, no newline added), so it compares with what the API answered. */
const render = (history: readonly HistoryEntry[], format: 'json' | 'table'): string =>
  format === 'json' ? JSON.stringify({ history }) : table(history);

/** `leasehold history <lease>`: the lease's history exactly as GET /v1/leases/{id}/history answers it (as an admin). */
export const historyCommand: CliCommand = {
  register(program, context) {
    program
      .command('history')
      .description('print the history of a lease: its events and its bookings in log order, as GET /v1/leases/{id}/history answers it')
      .argument('<lease>', 'lease id, or its current name (a name several leases share is refused with their ids)')
      .addOption(
        new Option('--format <format>', 'json: the HTTP body, byte for byte; table: one aligned row per event')
          .choices(['json', 'table'])
          .default('json'),
      )
      .action(async (lease: string, options: { readonly format: 'json' | 'table' }) => {
        const store = context.openStore();
        try {
          const leaseId = await resolveLease(store, lease);
          // an operator with the data folder in hand sees what an admin would
          const history = await new HistoryQueries(store).lease(systemCaller('cli'), leaseId).catch((error: unknown) => {
            throw error instanceof DomainError ? new UsageError(error.message) : error;
          });
          await writeOut(context.stdout, render(history, options.format));
        } finally {
          await store.close();
        }
      });
  },
};
