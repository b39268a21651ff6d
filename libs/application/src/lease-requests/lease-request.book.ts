import {
  LEASE_REQUEST_CATEGORY,
  type ExistingLeaseRequest,
  type LeaseRequestEvent,
  type LeaseRequestState,
  leaseRequestDecider,
} from '#domain/index.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { AsyncMutex } from '../write-model/async-mutex.js';

/**
 * Every lease request, folded from the log in the API's memory and caught up to the log's head before each read, so a
 * caller's own write always shows (as the maintenance windows are read from the write side). In submission order: the
 * queue's first-come-first-served order is the order of the map.
 */
export class LeaseRequestBook {
  private readonly requests = new Map<string, ExistingLeaseRequest>();
  private readonly mutex = new AsyncMutex();
  private position = 0;

  constructor(private readonly store: EventStore) {}

  /** Folds what the log holds beyond what was read; one catch-up at a time, so no event is folded twice. */
  catchUp(): Promise<void> {
    return this.mutex.run(async () => {
      const events = await this.store.readAll({ from: this.position, filter: { categories: [LEASE_REQUEST_CATEGORY] } });
      for (const event of events) {
        const { requestId } = event.data as LeaseRequestEvent['data'];
        const before: LeaseRequestState = this.requests.get(requestId) ?? leaseRequestDecider.initialState();
        const after = leaseRequestDecider.evolve(before, { type: event.type, data: event.data } as LeaseRequestEvent);
        if (after.status !== 'Initial') this.requests.set(requestId, after);
        this.position = event.position;
      }
    });
  }

  request(requestId: string): ExistingLeaseRequest | undefined {
    return this.requests.get(requestId);
  }

  /** Requests in submission order, those of `projectId` only unless it is null. */
  list(projectId: string | null): ExistingLeaseRequest[] {
    const all = [...this.requests.values()];
    return projectId === null ? all : all.filter((state) => state.request.projectId === projectId);
  }

  /** Each queued request's rank (1 for the head), first come first served; a request no longer queued has none. */
  queuePositions(): Map<string, number> {
    const queued = [...this.requests].filter(([, state]) => state.status === 'Queued');
    return new Map(queued.map(([requestId], index) => [requestId, index + 1]));
  }
}
