import { systemCaller } from '#application/caller.js';
import { CommandHandler } from '#application/command-handler.js';
import { HostReactionUseCases } from '#application/reactions/host-reactions.use-cases.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { ledgerFile } from './ledger-replay.js';

/**
 * Records in a running system's log what the reactor's host monitor records when Nova reports a
 * compute forced down: the test plays the monitor and sends the reactor's own command, so the same
 * use case decides (and, when a booking raced the report, decides again on the fresh host).
 */
export const reportHostDown = async (dataDir: string, hostId: string): Promise<void> => {
  const store = SqliteEventStore.open({ file: ledgerFile(dataDir) });
  try {
    const reactions = new HostReactionUseCases({ handler: new CommandHandler(store) });
    const observedAt = new Date().toISOString();
    const cause = `test-down-${hostId}`;
    const outcome = await reactions.reportHealth({
      type: 'ReportHostHealth',
      data: { hostId, observedAt, observation: { source: 'polling', reasons: ['forced_down'] } },
      metadata: { actor: systemCaller('reactor'), correlationId: cause, causationId: cause, now: observedAt },
    });
    if (outcome === 'not-registered') throw new Error(`Host ${hostId} is not registered`);
  } finally {
    await store.close();
  }
};
