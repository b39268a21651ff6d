import { historyEntry, isCatalogued } from '#application/history/history-entry.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { type CliContext, writeOut } from '../cli-context.js';
import { progressBar } from '../progress-bar.js';

const PAGE = 2_000;

/** One public event per line, as a history lists it (docs/events.md); events outside the catalogue are not public. */
const ndjson = (events: readonly RecordedEvent[]): string =>
  events
    .flatMap((event) => (isCatalogued(event.type) ? [`${JSON.stringify(historyEntry({ ...event, type: event.type }))}\n`] : []))
    .join('');

/** The work of `leasehold export`, loaded only for it. */
export const runExport = async (context: CliContext, fromPosition: number): Promise<void> => {
  const store = await context.openStore();
  const progress = progressBar(context, 'export');
  try {
    const head = await store.headPosition();
    for (let from = fromPosition; from < head;) {
      const events = (await store.readAll({ from, limit: PAGE })).filter((event) => event.position <= head);
      const last = events.at(-1);
      if (last === undefined) break;
      await writeOut(context.stdout, ndjson(events));
      from = last.position;
      progress.update(from - fromPosition, head - fromPosition);
    }
  } finally {
    progress.finish();
    await store.close();
  }
};
