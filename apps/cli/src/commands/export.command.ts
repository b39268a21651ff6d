import { historyEntry, isCatalogued } from '#application/history/history-entry.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { writeOut } from '../cli-context.js';
import { progressBar } from '../progress-bar.js';
import { type CliCommand, positionArgument } from './cli-command.js';

const PAGE = 2_000;

/** One public event per line, as a history lists it (docs/events.md); events outside the catalogue are not public. */
const ndjson = (events: readonly RecordedEvent[]): string =>
  events
    .flatMap((event) => (isCatalogued(event.type) ? [`${JSON.stringify(historyEntry({ ...event, type: event.type }))}\n`] : []))
    .join('');

/** `leasehold export`: the public events of the whole log (or after a position), in log order, up to the head when it started. */
export const exportCommand: CliCommand = {
  register(program, context) {
    program
      .command('export')
      .description('write the public events of the log as NDJSON (one JSON object per line, in log order), up to the head at the start')
      .option('--from-position <n>', 'only the events after position n; pass the last position you exported to resume', positionArgument, 0)
      .action(async (options: { readonly fromPosition: number }) => {
        const store = context.openStore();
        const progress = progressBar(context, 'export');
        try {
          const head = await store.headPosition();
          for (let from = options.fromPosition; from < head;) {
            const events = (await store.readAll({ from, limit: PAGE })).filter((event) => event.position <= head);
            const last = events.at(-1);
            if (last === undefined) break;
            await writeOut(context.stdout, ndjson(events));
            from = last.position;
            progress.update(from - options.fromPosition, head - options.fromPosition);
          }
        } finally {
          progress.finish();
          await store.close();
        }
      });
  },
};
