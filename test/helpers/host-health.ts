import { type HostEvent, type HostState, foldEvents, hostDecider, hostStream } from '../../libs/domain/src/index.js';
import { WrongExpectedRevisionError } from '../../libs/event-store/src/event-store.port.js';
import { SqliteEventStore } from '../../libs/event-store/src/sqlite/sqlite-event-store.js';
import { ledgerFile } from './ledger-replay.js';

/**
 * Records in a running system's log what the reactor's host monitor records when Nova reports a
 * compute forced down (the test plays the monitor; the decider decides, as for the real one). Retries
 * when the host's calendar moved meanwhile (a booking raced the report).
 */
export const reportHostDown = async (dataDir: string, hostId: string): Promise<void> => {
  const store = SqliteEventStore.open({ file: ledgerFile(dataDir) });
  try {
    const streamId = hostStream(hostId);
    for (let attempt = 1; ; attempt++) {
      const recorded = await store.readStream(streamId);
      const state: HostState = foldEvents(hostDecider, recorded.map((e) => e as unknown as HostEvent));
      const command = { type: 'ReportHostHealth', data: { reasons: ['forced_down'], source: 'polling', observedAt: new Date().toISOString() } } as const;
      const events = hostDecider.decide(command, state);
      if (events.length === 0) return;
      const metadata = { correlationId: `test-down-${hostId}`, causationId: `test-down-${hostId}`, actor: null, reaction: 'host-polling' };
      const data = events.map((e, i) => ({ id: `test-down-${hostId}-${recorded.length}-${i}`, type: e.type, data: e.data, metadata }));
      try {
        await store.appendToStream(streamId, recorded.length - 1, data);
        return;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= 20) throw error;
      }
    }
  } finally {
    await store.close();
  }
};
