import {
  type Capabilities,
  FAIR_SHARE_EVENT_TYPES,
  type FairShareEvent,
  type HostEvent,
  type HostSize,
  type LeaseEvent,
  type RateCardPublished,
  USAGE_EVENT_TYPES,
  type UsagePiece,
  everyMetric,
  usagePieces,
} from '#domain/index.js';
import type { EventStore, FoldableEvent } from '#event-store/event-store.port.js';
import { USAGE_METRICS, reservationRates } from '#plugins/reservation-holdings.js';
import { AsyncMutex } from '../write-model/async-mutex.js';

/** A piece with its bounds in epoch milliseconds (end null: open at the last event folded). */
export interface TimedPiece extends UsagePiece {
  readonly startMs: number;
  readonly endMs: number | null;
}

interface Positioned<T> {
  readonly position: number;
  readonly value: T;
}

interface LeaseRecord {
  readonly projectId: string;
  readonly events: Positioned<LeaseEvent>[];
  /** Pieces of every event held, computed on first use after the last change. */
  pieces: readonly TimedPiece[] | null;
}

export type PublishedRateCard = RateCardPublished['data'];

const EVENT_TYPES: ReadonlySet<string> = new Set([
  ...USAGE_EVENT_TYPES,
  'Host.Registered',
  'Host.CapabilitiesUpdated',
  'RateCard.Published',
  ...FAIR_SHARE_EVENT_TYPES,
]);
const PAGE = 5000;
/**
 * The warm-up's turns are short: a request's way through the process (body, MikroORM, the response)
 * waits behind a turn at each of its own steps, so 5,000 events a turn held the first answers of a
 * fresh API on a long log back by over a second (about 0.1 s with 500).
 */
const WARM_PAGE = 500;
const WARM_CHUNK = 200;
const NO_SIZE: HostSize = { vcpus: 0, memoryMb: 0, diskGb: 0 };

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const timed = (piece: UsagePiece): TimedPiece => ({
  ...piece,
  startMs: Date.parse(piece.start),
  endMs: piece.end === null ? null : Date.parse(piece.end),
});

/** The newest value recorded at or before `position` (lists are in log order). */
const latestAt = <T>(list: readonly Positioned<T>[] | undefined, position: number): T | null => {
  if (list === undefined) return null;
  for (let i = list.length - 1; i >= 0; i -= 1) {
    const entry = list[i] as Positioned<T>;
    if (entry.position <= position) return entry.value;
  }
  return null;
};

/**
 * The usage read model: per lease, the events usage depends on with the positions they were
 * recorded at; per host, its size and capabilities over positions; every rate-card version; each
 * project's fair-share shares over positions (null: the default). Kept
 * in memory, caught up from the log before each report, so a report at position P folds only what
 * was recorded at or before P (the same answer whenever it is asked) without replaying the log.
 */
export class UsageIndex {
  private position = 0;
  private readonly leases = new Map<string, LeaseRecord>();
  private readonly leasesByProject = new Map<string, string[]>();
  private readonly hostSizes = new Map<string, HostSize>();
  private readonly capabilities = new Map<string, Positioned<Capabilities>[]>();
  private readonly rateCards = new Map<string, Positioned<PublishedRateCard>[]>();
  private readonly shares = new Map<string, Positioned<number | null>[]>();
  private readonly catchUpLock = new AsyncMutex();
  private readonly rates = reservationRates((hostId) => this.hostSizes.get(hostId) ?? NO_SIZE);

  constructor(private readonly store: EventStore) {}

  catchUp(): Promise<void> {
    return this.catchUpLock.run(async () => {
      for (let full = true; full;) full = await this.readPage(PAGE);
    });
  }

  /**
   * The first catch-up, then every lease folded once so that the first report does not pay for it, in
   * a process that already serves requests: the store's reads resolve at once, so a plain catch-up
   * would hold the event loop for the whole log; this one gives it back between pages (and every
   * WARM_CHUNK leases), and requests are answered meanwhile.
   */
  async warmUp(): Promise<void> {
    for (;;) {
      const full = await this.catchUpLock.run(() => this.readPage(WARM_PAGE));
      await nextTurn();
      if (!full) break;
    }
    let folded = 0;
    for (const leaseId of [...this.leases.keys()]) {
      this.piecesAt(leaseId, this.position);
      if (++folded % WARM_CHUNK === 0) await nextTurn();
    }
  }

  /** Leases of one project (null: all), in order of creation. */
  leaseIds(projectId: string | null): readonly string[] {
    if (projectId !== null) return this.leasesByProject.get(projectId) ?? [];
    return [...this.leases.keys()];
  }

  /** What a lease held as folded from its events recorded at or before `position`. */
  piecesAt(leaseId: string, position: number): readonly TimedPiece[] {
    const record = this.leases.get(leaseId);
    if (record === undefined || (record.events[0]?.position ?? Infinity) > position) return [];
    if ((record.events.at(-1)?.position ?? 0) <= position) {
      record.pieces ??= usagePieces(
        record.events.map((e) => e.value),
        this.rates,
      ).map(timed);
      return record.pieces;
    }
    const events = record.events.filter((e) => e.position <= position).map((e) => e.value);
    return usagePieces(events, this.rates).map(timed);
  }

  capabilitiesAt(hostId: string, position: number): Capabilities {
    return latestAt(this.capabilities.get(hostId), position) ?? {};
  }

  /** Every version of a rate card recorded at or before `position`, oldest first. */
  rateCardVersions(name: string, position: number): readonly PublishedRateCard[] {
    return (this.rateCards.get(name) ?? []).filter((entry) => entry.position <= position).map((entry) => entry.value);
  }

  /** The shares admins had set at `position`, by project (projects back at the default left out). */
  sharesAt(position: number): ReadonlyMap<string, number> {
    const set = new Map<string, number>();
    for (const [projectId, history] of this.shares) {
      const shares = latestAt(history, position);
      if (shares !== null) set.set(projectId, shares);
    }
    return set;
  }

  rateCardNames(position: number): readonly string[] {
    return [...this.rateCards.entries()]
      .filter(([, versions]) => (versions[0]?.position ?? Infinity) <= position)
      .map(([name]) => name)
      .sort();
  }

  /**
   * Folds in the next page of the log; whether the page was full. The log is read whole, in order, as position, type and
   * data, and the types kept here: SQLite reads that cheapest, where a filter on these nine types (and their categories) had
   * it merge each one's index run and return whole events, ids and metadata parsed; `leasehold usage`, which reads the log
   * from 0 each time, spent 1.0 s of CPU there on 100,000 events, 0.7 s now. A stored type names its aggregate (`Lease.`,
   * `Host.`, `RateCard.`, `FairShare.`): no other stream holds these types.
   */
  private async readPage(limit: number): Promise<boolean> {
    const events = await this.store.readAllFoldable({ from: this.position, limit });
    for (const event of events) if (EVENT_TYPES.has(event.type)) this.apply(event);
    this.position = events.at(-1)?.position ?? this.position;
    return events.length === limit;
  }

  private apply(event: FoldableEvent): void {
    if (event.type === 'RateCard.Published') {
      const published = event.data as PublishedRateCard;
      const data = { ...published, prices: everyMetric(USAGE_METRICS, published.prices) };
      const versions = this.rateCards.get(data.name) ?? [];
      versions.push({ position: event.position, value: data });
      this.rateCards.set(data.name, versions);
    } else if (event.type.startsWith('FairShare.')) {
      this.applyShares(event.position, { type: event.type, data: event.data } as FairShareEvent);
    } else if (event.type.startsWith('Host.')) {
      this.applyHost(event.position, { type: event.type, data: event.data } as HostEvent);
    } else {
      this.applyLease(event.position, { type: event.type, data: event.data } as LeaseEvent);
    }
  }

  private applyHost(position: number, event: HostEvent): void {
    if (event.type === 'Host.Registered') {
      const { hostId, info, capabilities } = event.data;
      this.hostSizes.set(hostId, { vcpus: info.vcpus, memoryMb: info.memoryMb, diskGb: info.localGb });
      this.capabilities.set(hostId, [{ position, value: capabilities }]);
    } else if (event.type === 'Host.CapabilitiesUpdated') {
      const history = this.capabilities.get(event.data.hostId);
      const current = history?.at(-1)?.value ?? {};
      // an update merges into what the host had, as the host's own fold does
      history?.push({ position, value: { ...current, ...event.data.capabilities } });
    }
  }

  private applyShares(position: number, event: FairShareEvent): void {
    const history = this.shares.get(event.data.projectId) ?? [];
    history.push({ position, value: event.type === 'FairShare.ShareSet' ? event.data.shares : null });
    this.shares.set(event.data.projectId, history);
  }

  private applyLease(position: number, event: LeaseEvent): void {
    if (event.type === 'Lease.Created') {
      const { leaseId, projectId, reservations } = event.data;
      // only what the fold reads: a report over many leases keeps no names, dates or trusts in memory
      const created = { type: event.type, data: { leaseId, projectId, reservations } } as unknown as LeaseEvent;
      this.leases.set(leaseId, { projectId, events: [{ position, value: created }], pieces: null });
      const ofProject = this.leasesByProject.get(projectId);
      if (ofProject === undefined) this.leasesByProject.set(projectId, [leaseId]);
      else ofProject.push(leaseId);
      return;
    }
    const record = this.leases.get((event.data as { leaseId: string }).leaseId);
    if (record === undefined) return;
    record.events.push({ position, value: event });
    record.pieces = null;
  }
}
