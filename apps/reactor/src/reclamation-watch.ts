import { LEFTOVER_KINDS, type Leftover, type LeftoverKind, type Reservation, describeError } from '#domain/index.js';
import type { CommandBus } from '@nestjs/cqrs';
import type { EffectContext, EffectsRegistry } from '#plugins/effects.port.js';
import { reservedHostIds } from '#plugins/reservation-holdings.js';
import { leftoversOf } from './effects-dispatch.js';
import type { LeaseRecord } from './lease-timeline.js';
import { reactorMetadata } from './reactor-metadata.js';
import { RecordLeftovers } from './commands/reactor.commands.js';
import type { ReactorLogEntry } from './scheduler.js';

export interface ReclamationWatchOptions {
  readonly commands: CommandBus;
  readonly effects: EffectsRegistry;
  readonly clock: () => Date;
  /** How long after its end a lease is looked at (and for as long as it has leftovers on record). */
  readonly windowMs: number;
  readonly hostname: (hostId: string) => string | undefined;
  readonly log: (entry: ReactorLogEntry) => void;
  /** What the last round found, per kind, over every lease it looked at. */
  readonly observed?: (counts: Readonly<Record<LeftoverKind, number>>) => void;
}

/** What one round found, for the log and the tests. */
export interface ReclamationReport {
  readonly checked: number;
  readonly leftovers: number;
  readonly recorded: number;
  readonly skipped: number;
}

/** A lease the watch looks at, as a snapshot keeps it. */
export interface ReclaimingEntry {
  readonly record: LeaseRecord;
  readonly leftovers: number;
}

interface Watched {
  record: LeaseRecord;
  readonly endedAtMs: number;
  leftovers: number;
}

/** When the lease's end effects ran, as its own fold says: ended (at its end date), or deleted and ended. */
const endedAtMs = (record: LeaseRecord): number | null => {
  const { state } = record;
  if (state.status === 'Ended') return Date.parse(state.lease.endDate);
  if (state.status === 'Deleted' && state.end === 'done') return Math.min(Date.parse(state.deletedAt), Date.parse(state.lease.endDate));
  return null;
};

/**
 * Lease-end reclamation, checked: the reconciler's round asks each reservation's effects adapter what of
 * a recently ended lease is still in the cloud and records a finding on the lease (once per finding:
 * the decision compares it with the last one on record), then its clearing. A lease leaves the watch once
 * its window has passed with nothing left; the timeline hands over every lease it sees finish, also
 * while catching up at start, and a reactor started from a snapshot gets those it watched from it,
 * so a restarted reactor watches the same leases.
 */
export class ReclamationWatch {
  private readonly watched = new Map<string, Watched>();

  constructor(private readonly options: ReclamationWatchOptions) {}

  finished(record: LeaseRecord): void {
    const at = endedAtMs(record);
    if (at === null || record.state.status === 'Initial') return;
    const { leftovers, leaseId } = record.state.lease;
    if (this.options.clock().getTime() - at > this.options.windowMs && leftovers.length === 0) return;
    this.watched.set(leaseId, { record, endedAtMs: at, leftovers: leftovers.length });
  }

  /** The leases it looks at and how many leftovers the last look found (for the reactor's snapshot). */
  entries(): ReclaimingEntry[] {
    return [...this.watched.values()].map(({ record, leftovers }) => ({ record, leftovers }));
  }

  /** Looks at these leases again (from the reactor's snapshot): those past the window with nothing left go at the next round. */
  restore(entries: readonly ReclaimingEntry[]): void {
    for (const { record, leftovers } of entries) {
      const at = endedAtMs(record);
      if (at !== null && record.state.status !== 'Initial')
        this.watched.set(record.state.lease.leaseId, { record, endedAtMs: at, leftovers });
    }
  }

  async checkOnce(stopped: () => boolean): Promise<ReclamationReport> {
    const counts = { checked: 0, leftovers: 0, recorded: 0, skipped: 0 };
    const byKind = Object.fromEntries(LEFTOVER_KINDS.map((kind) => [kind, 0])) as Record<LeftoverKind, number>;
    const now = this.options.clock().getTime();
    for (const [leaseId, watched] of [...this.watched]) {
      if (stopped()) return counts;
      if (now - watched.endedAtMs > this.options.windowMs && watched.leftovers === 0) {
        this.watched.delete(leaseId);
        continue;
      }
      const leftovers = await this.look(watched.record);
      if (leftovers === null) {
        counts.skipped++;
        continue;
      }
      counts.checked++;
      counts.leftovers += leftovers.length;
      for (const leftover of leftovers) byKind[leftover.kind]++;
      watched.leftovers = leftovers.length;
      if (await this.record(watched.record, leftovers)) counts.recorded++;
    }
    this.options.observed?.(byKind);
    return counts;
  }

  /** Every reservation's leftovers, or null when the cloud could not be asked (next round). */
  private async look(record: LeaseRecord): Promise<Leftover[] | null> {
    if (record.state.status === 'Initial') return [];
    const { leaseId, projectId, trustId, reservations } = record.state.lease;
    try {
      const found = await Promise.all(
        reservations.map((reservation) => {
          const context: EffectContext = {
            idempotencyKey: `${leaseId}:leftovers:${reservation.id}`,
            leaseId,
            projectId,
            phase: 'end',
            resourceNames: this.names(reservation),
            trustId,
          };
          return leftoversOf(this.options.effects, context, reservation);
        }),
      );
      return found.flat();
    } catch (error) {
      this.options.log({ event: 'reclamation-skipped', leaseId, error: describeError(error) });
      return null;
    }
  }

  private async record(record: LeaseRecord, leftovers: readonly Leftover[]): Promise<boolean> {
    if (record.state.status === 'Initial') return false;
    const { leaseId } = record.state.lease;
    const metadata = reactorMetadata({ correlationId: record.correlationId, causationId: record.lastEventId }, this.options.clock);
    const outcome = await this.options.commands.execute(new RecordLeftovers({ leaseId, leftovers }, metadata));
    if (outcome.status === 'recorded')
      this.options.log({ event: 'reclamation-leftovers', leaseId, type: outcome.type, leftovers: leftovers.length });
    if (outcome.status === 'refused') this.options.log({ event: 'reclamation-skipped', leaseId, error: outcome.reason });
    return outcome.status === 'recorded';
  }

  private names(reservation: Reservation): Record<string, string> {
    return Object.fromEntries(
      reservedHostIds(reservation).flatMap((hostId) => {
        const name = this.options.hostname(hostId);
        return name === undefined ? [] : [[hostId, name] as const];
      }),
    );
  }
}
