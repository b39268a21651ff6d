import {
  DomainError,
  type HostReplacement,
  type LeaseEvent,
  type LeaseState,
  MINUTE_MS,
  conflict,
  leaseStream,
  toMs,
} from '#domain/index.js';
import { ADMISSION_REGISTRY, type AdmissionRegistry, Admissions } from '#plugins/admission/admission.registry.js';
import { leaseDecider } from '#plugins/lease.decider.js';
import { reservedHostIds } from '#plugins/reservation-holdings.js';
import type { ApplicationContext } from '../application-context.js';
import { type AppCommand, appendTo, eventMetadata } from '../command.js';
import { admissionContext, bookingPlan } from '../write-model/lease-admission.js';
import { describeError } from '#domain/index.js';

/** One healing pass over every host that is down; only the service itself sends it. */
export type HealReservations = AppCommand<'HealReservations', Readonly<Record<string, never>>>;

/** One reservation's healing, as recorded. */
export interface HealedReservation {
  readonly leaseId: string;
  readonly reservationId: string;
  readonly replacements: readonly HostReplacement[];
  readonly unhealedHostIds: readonly string[];
}

export interface HealingPass {
  readonly downHostIds: readonly string[];
  /** Leases holding a down host within the healing window. */
  readonly examined: number;
  readonly healed: readonly HealedReservation[];
  /** Leases this pass could not heal now (starting or ending, or contention): the next pass tries again. */
  readonly deferred: readonly { readonly leaseId: string; readonly reason: string }[];
}

export interface HealingSettings {
  /**
   * Upstream's [physical:host]healing_interval, minutes: reservations overlapping [now, now + this]
   * are healed when a host fails, later ones at a later pass (0: every reservation, however far ahead).
   */
  readonly intervalMinutes: number;
}

/**
 * Healing of reservations whose hosts went down (upstream's monitor + heal_reservations): a pass finds
 * every lease booked on a down host within the healing window, asks each type's admission for free
 * replacements, and records the lease's `Reservation.Healed` with the replacement bookings and the
 * released ones in one decision. A pass is idempotent: a healed reservation no longer holds the down
 * host, and an unhealed one is recorded once (then tried again at each pass until a replacement frees
 * up or the host comes back).
 */
export class HealingUseCase {
  private readonly admissions: Admissions;

  constructor(
    private readonly context: ApplicationContext,
    private readonly settings: HealingSettings,
    registry: AdmissionRegistry = ADMISSION_REGISTRY,
  ) {
    this.admissions = new Admissions(registry);
  }

  /** Never throws for one lease's trouble: that lease is deferred to the next pass. */
  async pass(command: HealReservations): Promise<HealingPass> {
    if (command.metadata.actor.system === null)
      throw new DomainError('HEALING_IS_INTERNAL', 'forbidden', 'Only the service heals reservations');
    const { index } = this.context;
    await index.catchUp();
    const now = toMs(command.metadata.now);
    index.forgetBookingsEndedBefore(now - this.pastKeptMs());
    const horizon = this.settings.intervalMinutes > 0 ? now + this.settings.intervalMinutes * MINUTE_MS : Number.POSITIVE_INFINITY;
    const down = index.registeredHosts().filter((host) => host.health.status === 'down');
    const downHostIds = down.map((host) => host.hostId);
    const leaseIds = new Set<string>();
    for (const host of down) {
      for (const booking of host.bookings) if (booking.end > now && booking.start < horizon) leaseIds.add(booking.leaseId);
    }
    const healed: HealedReservation[] = [];
    const deferred: { leaseId: string; reason: string }[] = [];
    for (const leaseId of [...leaseIds].sort()) {
      try {
        healed.push(...(await this.healLease(command, leaseId, downHostIds)));
      } catch (error) {
        deferred.push({ leaseId, reason: describeError(error) });
      }
    }
    return { downHostIds, examined: leaseIds.size, healed, deferred };
  }

  /**
   * How far back this pass's calendars keep ended bookings. A replacement is booked from now on
   * (from the current minute at the earliest), so a booking that ended two cleaning times and ten
   * minutes ago can never be in its way; keeping every ended booking grew the reactor with the ledger.
   */
  private pastKeptMs(): number {
    return (2 * this.context.settings.cleaningTimeMinutes + 10) * MINUTE_MS;
  }

  private async healLease(command: HealReservations, leaseId: string, downHostIds: readonly string[]): Promise<HealedReservation[]> {
    const { handler, index, newId } = this.context;
    const { now } = command.metadata;
    const { result } = await handler.handle(async () => {
      await index.catchUp();
      const loaded = await handler.load(leaseDecider, leaseStream(leaseId));
      const { state } = loaded;
      if (state.status === 'Starting' || state.status === 'Ending')
        throw conflict('LEASE_BUSY', `lease ${leaseId} is ${state.status.toLowerCase()}; healed at a later pass`);
      if (state.status !== 'Pending' && state.status !== 'Active') return { appends: [], result: [] };
      const { lease } = state;
      // replacements are booked from now on: the past of a started lease is spent
      const startDate = toMs(lease.startDate) > toMs(now) ? lease.startDate : now;
      const plan = bookingPlan(this.context);
      const admission = admissionContext(this.context, plan, { leaseId, startDate, endDate: lease.endDate }, { isAdmin: true });
      const down = new Set(downHostIds);
      const events: LeaseEvent[] = [];
      const healed: HealedReservation[] = [];
      let current: LeaseState = state;
      for (const reservation of lease.reservations) {
        if (!reservedHostIds(reservation).some((hostId) => down.has(hostId))) continue;
        const healing = this.admissions.heal(admission, reservation, down);
        if (healing === null) continue;
        const decided = leaseDecider.decide({ type: 'HealReservation', data: { leaseId, ...healing, now } }, current);
        current = decided.reduce(leaseDecider.evolve, current);
        events.push(...decided);
        if (decided.length > 0)
          healed.push({
            leaseId,
            reservationId: reservation.id,
            replacements: healing.replacements,
            unhealedHostIds: healing.unhealedHostIds,
          });
      }
      if (events.length === 0) return { appends: [], result: [] };
      const recorded = eventMetadata(command.metadata, { reason: 'host_down', downHostIds });
      return {
        appends: [appendTo(leaseStream(leaseId), loaded.revision, events, recorded, newId), ...plan.appends(recorded, newId)],
        result: healed,
      };
    });
    return result;
  }
}
