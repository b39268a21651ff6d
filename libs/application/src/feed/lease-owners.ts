import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { LeaseCreated, Reservation } from '#domain/index.js';
import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';

/** Whose a lease is: what the lease policy judges a caller against. */
export interface LeaseOwner {
  readonly projectId: string;
  readonly userId: string;
}

/** The only events that name a lease's owner or its reservations' ids. */
const OWNER_EVENTS = ['Lease.Created', 'Reservation.Changed', 'Reservation.Healed'] as const;

const BATCH = 1000;

/**
 * Lease -> owner and reservation -> lease, read from the log through its type index and kept in
 * memory: a lease's owner never changes, so the index only grows, and it is brought up to a position
 * by reading the few owner events after the last one it saw, never by looking up each event's lease.
 */
export class LeaseOwners {
  private readonly owners = new Map<string, LeaseOwner>();
  private readonly leaseOfReservation = new Map<string, string>();
  private position = 0;
  /** One catch-up at a time: concurrent pages share it instead of reading the same events twice. */
  private pending: Promise<void> = Promise.resolve();

  constructor(private readonly store: EventStore) {}

  /** Resolves once every owner event at or below `position` is in the index. */
  advanceTo(position: number): Promise<void> {
    if (position <= this.position) return Promise.resolve();
    const next = this.pending.then(() => this.readUpTo(position));
    // a failed read fails its callers only; the next catch-up starts again from what was read
    this.pending = next.catch(() => undefined);
    return next;
  }

  ownerOf(leaseId: string): LeaseOwner | undefined {
    return this.owners.get(leaseId);
  }

  leaseOf(reservationId: string): string | undefined {
    return this.leaseOfReservation.get(reservationId);
  }

  private async readUpTo(position: number): Promise<void> {
    while (this.position < position) {
      const events = await this.store.readAll({ from: this.position, limit: BATCH, filter: { types: OWNER_EVENTS } });
      events.forEach((event) => this.note(event));
      const last = events.at(-1)?.position ?? this.position;
      // a short batch read everything matching up to the head, which is at least `position`
      this.position = events.length < BATCH ? Math.max(position, last) : last;
      // a first catch-up over a long log must not hold the process's other requests
      if (this.position < position) await yieldToEventLoop();
    }
  }

  private note(event: RecordedEvent): void {
    if (event.type === 'Lease.Created') {
      const data = event.data as LeaseCreated['data'];
      this.owners.set(data.leaseId, { projectId: data.projectId, userId: data.userId });
      for (const reservation of data.reservations) this.leaseOfReservation.set(reservation.id, data.leaseId);
      return;
    }
    const data = event.data as { readonly leaseId: string; readonly reservation: Reservation };
    this.leaseOfReservation.set(data.reservation.id, data.leaseId);
  }
}
