import type { AppendRequest, EventStore } from '#event-store/event-store.port.js';
import type { ApplicationContext } from '../application-context.js';
import { CommandHandler } from '../command-handler.js';
import type { UpdateLeaseRequest } from '../leases/lease.commands.js';
import { WriteIndex } from '../write-model/write-index.js';
import { DEFAULT_SETTINGS } from './application.specification.js';

/** One API process over a shared log: its own handler and write index, its ids named after it. */
export const processContext = (store: EventStore, name: string): ApplicationContext => {
  let ids = 0;
  return { handler: new CommandHandler(store), index: new WriteIndex(store), settings: DEFAULT_SETTINGS, newId: () => `${name}-${++ids}` };
};

/** The leases created in the log, in order. */
export const leasesIn = async (store: EventStore): Promise<string[]> =>
  (await store.readAll({ from: 0 })).filter((e) => e.type === 'Lease.Created').map((e) => (e.data as { leaseId: string }).leaseId);

/** An update that changes `fields` only. */
export const leaseChanges = (fields: Partial<UpdateLeaseRequest>): UpdateLeaseRequest => ({
  name: null,
  startDate: null,
  endDate: null,
  beforeEndDate: null,
  reservations: [],
  ...fields,
});

/**
 * The store as one process sees it, whose first append waits until released: `decided` resolves once
 * the process has decided and stands at that append, so another process can write meanwhile.
 */
export const heldBack = (store: EventStore) => {
  let held = false;
  let arrive = (): void => undefined;
  let release = (): void => undefined;
  const decided = new Promise<void>((resolve) => (arrive = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  const view = new Proxy(store, {
    get(target, name, receiver) {
      if (name !== 'appendMultiple') return Reflect.get(target, name, receiver) as unknown;
      return async (requests: readonly AppendRequest[]) => {
        if (!held) {
          held = true;
          arrive();
          await gate;
        }
        return target.appendMultiple(requests);
      };
    },
  });
  return { view, decided, release };
};
