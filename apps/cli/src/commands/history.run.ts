import { DomainError } from '#domain/index.js';
import { systemCaller } from '#application/caller.js';
import type { HistoryEntry } from '#application/history/history-entry.js';
import { HistoryQueries } from '#application/history/history.queries.js';
import { type CliContext, UsageError, writeOut } from '../cli-context.js';
import { resolveLease } from '../lease-lookup.js';
import { textTable } from '../text-table.js';

export type HistoryFormat = 'json' | 'table';

const actorText = (entry: HistoryEntry): string => entry.actor.system ?? `${entry.actor.user_id ?? '-'}@${entry.actor.project_id ?? '-'}`;

const COLUMNS = ['position', 'recorded_at', 'type', 'actor', 'summary'];

const table = (entries: readonly HistoryEntry[]): string =>
  textTable(COLUMNS, [entries.map((e) => [e.position, e.recorded_at, e.type, actorText(e), e.summary])]);

/** json is the HTTP body byte for byte (no indentation, no newline added), so it compares with what the API answered. */
const render = (history: readonly HistoryEntry[], format: HistoryFormat): string =>
  format === 'json' ? JSON.stringify({ history }) : table(history);

/** The work of `leasehold history`, loaded only for it. */
export const runHistory = async (context: CliContext, lease: string, format: HistoryFormat): Promise<void> => {
  const store = await context.openStore();
  try {
    const leaseId = await resolveLease(store, lease);
    // an operator with the data folder in hand sees what an admin would
    const history = await new HistoryQueries(store).lease(systemCaller('cli'), leaseId).catch((error: unknown) => {
      throw error instanceof DomainError ? new UsageError(error.message) : error;
    });
    await writeOut(context.stdout, render(history, format));
  } finally {
    await store.close();
  }
};
