import { randomUUID } from 'node:crypto';
import {
  type AllocationRatios,
  type LeaseEvent,
  type LeaseState,
  leaseDecider,
  leaseStream,
  reservedHostIds,
  toMs,
} from '../../../../libs/domain/src/index.js';
import type { EventMetadata, EventStore } from '../../../../libs/event-store/src/event-store.port.js';
import { AsyncMutex } from '../../../../libs/application/src/write-model/async-mutex.js';
import { BookingPlan } from '../../../../libs/application/src/write-model/booking-plan.js';
import { appendRequest } from './event-envelope.js';
import { ReservationAdmission } from './reservation-admission.js';
import { retryOnConflict } from './retry.js';
import type { WriteIndex } from '../../../../libs/application/src/write-model/write-index.js';

export interface LeaseHealerOptions {
  readonly cleaningTimeMinutes: number;
  readonly allocationRatios: AllocationRatios;
  /**
   * Upstream's [physical:host]healing_interval: reservations overlapping [now, now + this] are healed
   * when a host fails; later ones at a later pass (0: every reservation, however far ahead).
   */
  readonly healingIntervalMinutes: number;
  readonly clock: () => Date;
}

/** One reservation's healing, as recorded. */
export interface HealedReservation {
  readonly leaseId: string;
  readonly reservationId: string;
  readonly replacements: readonly { readonly hostId: string; readonly by: readonly string[] }[];
  readonly unhealedHostIds: readonly string[];
}

export interface HealingPass {
  readonly downHostIds: readonly string[];
  /** Leases holding a down host within the healing window. */
  readonly examined: number;
  readonly healed: readonly HealedReservation[];
  /** Leases a pass could not heal now (starting or ending, or contention): the next pass tries again. */
  readonly deferred: readonly { readonly leaseId: string; readonly reason: string }[];
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Healing of reservations whose hosts went down (upstream's monitor + heal_reservations): a pass finds
 * every lease booked on a down host within the healing window, asks the allocation policies for free
 * replacements, and appends the lease's `Reservation.Healed` together with the replacement bookings
 * and the released ones, under the revisions it decided on. A pass is idempotent: a healed
 * reservation no longer holds the down host, and an unhealed one is recorded once (then retried
 * silently at each pass until a replacement frees up or the host comes back).
 */
export class LeaseHealer {
  private readonly lock = new AsyncMutex();

  constructor(
    private readonly store: EventStore,
    private readonly index: WriteIndex,
    private readonly options: LeaseHealerOptions,
  ) {}

  /** One healing pass over every down host; never throws for one lease's trouble. */
  pass(): Promise<HealingPass> {
    return this.lock.run(async () => {
      await this.index.catchUp();
      const now = this.options.clock();
      const horizon = this.options.healingIntervalMinutes > 0 ? now.getTime() + this.options.healingIntervalMinutes * 60_000 : Number.POSITIVE_INFINITY;
      const down = this.index.registeredHosts().filter((host) => host.health.status === 'down');
      const leaseIds = new Set<string>();
      for (const host of down) {
        for (const booking of host.bookings) if (booking.end > now.getTime() && booking.start < horizon) leaseIds.add(booking.leaseId);
      }
      const healed: HealedReservation[] = [];
      const deferred: { leaseId: string; reason: string }[] = [];
      for (const leaseId of [...leaseIds].sort()) {
        try {
          healed.push(...(await this.healLease(leaseId, down.map((h) => h.hostId))));
        } catch (error) {
          deferred.push({ leaseId, reason: describe(error) });
        }
      }
      return { downHostIds: down.map((h) => h.hostId), examined: leaseIds.size, healed, deferred };
    });
  }

  private healLease(leaseId: string, downHostIds: readonly string[]): Promise<HealedReservation[]> {
    return retryOnConflict(async () => {
      await this.index.catchUp();
      const recorded = await this.store.readStream(leaseStream(leaseId));
      const state: LeaseState = recorded.map((e) => ({ type: e.type, data: e.data }) as LeaseEvent).reduce(leaseDecider.evolve, leaseDecider.initialState());
      if (state.status !== 'Pending' && state.status !== 'Active') {
        if (state.status === 'Starting' || state.status === 'Ending') throw new Error(`lease ${leaseId} is ${state.status.toLowerCase()}; healed at a later pass`);
        return [];
      }
      const { lease } = state;
      const nowIso = this.options.clock().toISOString();
      // replacements are booked from now on: the past of a started lease is spent
      const startDate = toMs(lease.startDate) > toMs(nowIso) ? lease.startDate : nowIso;
      const plan = new BookingPlan(this.index, { cleaningTimeMinutes: this.options.cleaningTimeMinutes, allocationRatios: this.options.allocationRatios });
      const admission = new ReservationAdmission(plan, this.index.flavorCatalog().state.flavors, { leaseId, startDate, endDate: lease.endDate }, { isAdmin: true });
      const down = new Set(downHostIds);
      const events: LeaseEvent[] = [];
      const healed: HealedReservation[] = [];
      let current: LeaseState = state;
      for (const reservation of lease.reservations) {
        if (!reservedHostIds(reservation).some((hostId) => down.has(hostId))) continue;
        const healing = admission.heal(reservation, down);
        if (healing === null) continue;
        const decided = leaseDecider.decide({ type: 'HealReservation', data: { leaseId, ...healing, now: nowIso } }, current);
        current = decided.reduce(leaseDecider.evolve, current);
        events.push(...decided);
        if (decided.length > 0) {
          healed.push({ leaseId, reservationId: reservation.id, replacements: healing.replacements, unhealedHostIds: healing.unhealedHostIds });
        }
      }
      if (events.length === 0) return [];
      const metadata = healingMetadata(downHostIds);
      await this.store.appendMultiple([appendRequest(leaseStream(leaseId), recorded.length - 1, events, metadata), ...plan.appends(metadata, () => randomUUID())]);
      return healed;
    });
  }
}

/** Caused by the service itself: no user, the hosts that were down. */
const healingMetadata = (downHostIds: readonly string[]): EventMetadata => {
  const id = randomUUID();
  return { correlationId: id, causationId: id, actor: null, reason: 'host_down', downHostIds };
};
