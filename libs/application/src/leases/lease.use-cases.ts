import {
  type DomainError,
  type ExistingLease,
  type LeaseChanges,
  type LeaseEvent,
  type LeaseHolding,
  type LeaseState,
  checkReservationIds,
  checkResourceTypes,
  foldEvents,
  hasStarted,
  holdingOfState,
  isDomainError,
  leaseStream,
  requireExisting,
  scheduleForCreate,
  scheduleForUpdate,
} from '#domain/index.js';
import type { AdmissionContext } from '#plugins/admission/admission.port.js';
import { ADMISSION_REGISTRY, type AdmissionRegistry, Admissions } from '#plugins/admission/admission.registry.js';
import { type LeaseTrusts, NO_LEASE_TRUSTS } from '#plugins/ports/lease-trusts.port.js';
import { NO_ZONE_RULE } from '#plugins/zone-rule.js';
import { leaseDecider } from '#plugins/lease.decider.js';
import { reservationAmounts } from '#plugins/reservation-holdings.js';
import type { ApplicationContext } from '../application-context.js';
import { AvailabilityQueries } from '../availability/availability.queries.js';
import { COUNTER_OFFERS, CapacityRefused } from '../availability/counter-offer.js';
import { isCapacityRefusal } from '../availability/window-search.js';
import { authorize, leaseTarget } from '../caller.js';
import { appendTo, eventMetadata } from '../command.js';
import type { Decision } from '../command-handler.js';
import type { AppendRequest, EventMetadata } from '#event-store/event-store.port.js';
import type { EnforcedLease } from '../enforcement/lease-body.js';
import type { StackingChange } from '../enforcement/lease-stacking.js';
import { NO_ENFORCEMENT, type UsageEnforcement } from '../enforcement/usage-enforcement.js';
import { decideHeadroom } from '../guardrails/headroom-decision.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import type { Quotas } from '../quotas/quotas.js';
import { admissionContext, bookingPlan } from '../write-model/lease-admission.js';
import type { CreateLeaseCommand, DeleteLeaseCommand, LeaseWritten, UpdateLeaseCommand } from './lease.commands.js';

/**
 * Who may do what to leases: the use cases enforce it (a change or delete against the stored lease's
 * project and user); a transport may ask `create` first, as upstream answers 403 before 400.
 */
export const LEASE_POLICY = { create: ACTIONS.leasePost, update: ACTIONS.leasePut, remove: ACTIONS.leaseDelete } as const;

/** What a lease is made for (a lease request's admission): the event that causes it, and what is appended with it. */
export interface LeaseCause {
  /** The id of the event the lease's events (and its bookings') name as their causation. */
  readonly causationId: string;
  /** Appends written in the lease's own atomic write, decided again with it on a retry. */
  readonly appends: (leaseId: string) => readonly AppendRequest[];
}

/** A lease decision as the quotas and the stacking limit judge it. */
interface LeaseChange extends StackingChange {
  readonly leaseId: string;
}

/** Leases: each write decides the lease and the calendars it books together, appended atomically. */
export class LeaseUseCases {
  private readonly admissions: Admissions;
  private readonly availability: AvailabilityQueries;

  constructor(
    private readonly context: ApplicationContext,
    private readonly trusts: LeaseTrusts = NO_LEASE_TRUSTS,
    private readonly enforcement: UsageEnforcement = NO_ENFORCEMENT,
    private readonly quotas: Quotas | null = null,
    registry: AdmissionRegistry = ADMISSION_REGISTRY,
  ) {
    if (enforcement.stacking !== null && quotas === null)
      throw new Error('lease_stacking is judged on the quota index: give the leases their quotas');
    this.admissions = new Admissions(registry);
    this.availability = new AvailabilityQueries(context, registry);
  }

  /**
   * The enforcement filters first, then the trust (Keystone may refuse it: nothing recorded); a lease
   * refused after the trust takes it back.
   */
  async create(command: CreateLeaseCommand): Promise<LeaseWritten> {
    authorize(command.metadata.actor, LEASE_POLICY.create);
    try {
      return await this.createWith(command, null);
    } catch (error) {
      throw await this.counterOfferForCreate(error, command);
    }
  }

  /**
   * A create's filters, trust and admission without a counter-offer, `cause`'s appends in the same atomic write and its
   * event as the causation of everything the lease's decision appends (a lease request admitted, docs/queue.md). The
   * caller authorizes.
   */
  async createWith(command: CreateLeaseCommand, cause: LeaseCause | null): Promise<LeaseWritten> {
    await this.enforceCreate(command);
    const trustId = await this.trusts.create(command.metadata);
    try {
      return await this.record(command, trustId, cause);
    } catch (error) {
      if (trustId !== null && isDomainError(error)) await this.trusts.discard(trustId, command.metadata);
      throw error;
    }
  }

  /** Searched once the write lock is released: a refusal costs the search, an admission nothing. */
  private async counterOfferForCreate(error: unknown, { data, metadata }: CreateLeaseCommand): Promise<unknown> {
    if (!isCapacityRefusal(error)) return error;
    const alternatives = await this.availability.alternativesForCreate(
      metadata.actor,
      data.reservations,
      data.startDate,
      data.endDate,
      COUNTER_OFFERS,
    );
    return new CapacityRefused(error as DomainError, alternatives);
  }

  /** As for a create: the same change (same patches) at the earliest other windows of its new duration; none for a started lease. */
  private async counterOfferForUpdate(error: unknown, { data: { leaseId, changes }, metadata }: UpdateLeaseCommand): Promise<unknown> {
    if (!isCapacityRefusal(error)) return error;
    const existing = requireExisting((await this.context.handler.load(leaseDecider, leaseStream(leaseId))).state, leaseId);
    const { name, startDate, endDate, beforeEndDate } = changes;
    const schedule = scheduleForUpdate(
      existing,
      { name, startDate, endDate, beforeEndDate, reservationIds: changes.reservations.map((r) => r.id) },
      metadata.now,
    );
    if (schedule === null) return error;
    const attemptAt = (admissions: Admissions) => (context: AdmissionContext) => {
      for (const r of existing.lease.reservations)
        admissions.readmit(
          context,
          r,
          changes.reservations.find((p) => p.id === r.id),
          false,
        );
    };
    const alternatives = await this.availability.alternativesForUpdate(metadata.actor, existing, attemptAt, schedule, COUNTER_OFFERS);
    return new CapacityRefused(error as DomainError, alternatives);
  }

  /**
   * Filters that look at allocations see those of a decision taken without being recorded (the same
   * admission, under the lock, which is released before the filters run: they may call out); the
   * recorded write that follows decides again, and may pick other resources should another write have
   * booked them in between.
   */
  private async enforceCreate({ data: request, metadata }: CreateLeaseCommand): Promise<void> {
    if (!this.enforcement.enabled) return;
    const { startDate, endDate } = scheduleForCreate(request, this.context.settings.minutesBeforeEnd, metadata.now);
    let reservations: EnforcedLease['reservations'] = [];
    if (this.enforcement.needsAllocations) {
      const {
        result: { events },
      } = await this.context.handler.handle(async () => ({
        appends: [],
        result: (await this.decideCreate(request, metadata, null)).result,
      }));
      reservations = requireExisting(foldEvents(leaseDecider, events), 'new').lease.reservations;
    }
    await this.enforcement.checkCreate(this.enforcement.contextOf(metadata.actor), { startDate, endDate, reservations }, metadata.now);
  }

  private async record(
    { data: request, metadata }: CreateLeaseCommand,
    trustId: string | null,
    cause: LeaseCause | null,
  ): Promise<LeaseWritten> {
    const { result, position } = await this.context.handler.handle(() => this.decideCreate(request, metadata, trustId, cause));
    return { ...result, position };
  }

  private async decideCreate(
    request: CreateLeaseCommand['data'],
    metadata: CreateLeaseCommand['metadata'],
    trustId: string | null,
    cause: LeaseCause | null = null,
  ): Promise<Decision<{ readonly leaseId: string; readonly events: readonly LeaseEvent[] }>> {
    const { index, newId, settings } = this.context;
    const leaseId = newId();
    const schedule = scheduleForCreate(request, settings.minutesBeforeEnd, metadata.now);
    const { actor, now } = metadata;
    await index.catchUp();
    const plan = bookingPlan(this.context);
    const admission = admissionContext(this.context, plan, { leaseId, ...schedule }, actor);
    const reservations = request.reservations.map((reservation) => this.admissions.admit(admission, reservation));
    const { name, startDate, endDate, beforeEndDate } = request;
    const eventIds = { start: newId(), end: newId(), beforeEnd: newId() };
    const data = {
      leaseId,
      name,
      projectId: actor.projectId,
      userId: actor.userId,
      trustId,
      startDate,
      endDate,
      beforeEndDate,
      reservations,
      eventIds,
    };
    const created = leaseDecider.decide(
      { type: 'CreateLease', data: { ...data, minutesBeforeEnd: settings.minutesBeforeEnd, now } },
      leaseDecider.initialState(),
    );
    const events = [...created, ...decideHeadroom(this.headroomRule, plan, { leaseId, ...schedule }, actor, now)];
    const recorded = cause === null ? eventMetadata(metadata) : eventMetadata(metadata, { causationId: cause.causationId });
    const change = {
      projectId: actor.projectId,
      leaseId,
      before: leaseDecider.initialState(),
      after: foldEvents(leaseDecider, events),
      now,
    };
    const fence = await this.admittedFence(change, recorded);
    const caused = cause === null ? [] : cause.appends(leaseId);
    return {
      appends: [
        appendTo(leaseStream(leaseId), 'no_stream', events, recorded, newId),
        ...plan.appends(recorded, newId),
        ...fence,
        ...caused,
      ],
      result: { leaseId, events },
    };
  }

  /** The quota check and the stacking limit of a decision (a 403 when it would pass one) and the fence its append carries. */
  private admittedFence(change: LeaseChange, recorded: EventMetadata) {
    if (this.quotas === null) return Promise.resolve([]);
    const { projectId, leaseId, before, after, now } = change;
    const holdings = {
      projectId,
      leaseId,
      before: holdingOfState(reservationAmounts, before),
      after: holdingOfState(reservationAmounts, after),
      now,
    };
    const { stacking } = this.enforcement;
    const judge =
      stacking === null || !stacking.judges(change)
        ? null
        : (others: readonly LeaseHolding[]) => stacking.check(change, others, (id) => this.loadLease(id));
    return this.quotas.admit(holdings, recorded, this.context.newId, judge);
  }

  private async loadLease(leaseId: string): Promise<LeaseState> {
    return (await this.context.handler.load(leaseDecider, leaseStream(leaseId))).state;
  }

  /** Authorized against the stored lease, inside the decision: the lease read is the one the decision stands on. */
  async update(command: UpdateLeaseCommand): Promise<LeaseWritten> {
    try {
      await this.enforceUpdate(command);
      return await this.recordUpdate(command);
    } catch (error) {
      throw await this.counterOfferForUpdate(error, command);
    }
  }

  /** As for a create: the lease as it is and as it would be, from a decision not recorded when a filter looks at allocations. */
  private async enforceUpdate(command: UpdateLeaseCommand): Promise<void> {
    if (!this.enforcement.enabled) return;
    const { handler } = this.context;
    const { metadata } = command;
    const { result } = this.enforcement.needsAllocations
      ? await handler.handle(async () => ({ appends: [], result: await this.decideUpdate(command) }))
      : { result: await this.decideUpdate(command, { allocations: false }) };
    if (result.events.length === 0) return;
    const requested = requireExisting(foldEvents(leaseDecider, result.events, result.existing), command.data.leaseId).lease;
    await this.enforcement.checkUpdate(this.enforcement.contextOf(metadata.actor), result.existing.lease, requested, metadata.now);
  }

  private async recordUpdate(command: UpdateLeaseCommand): Promise<LeaseWritten> {
    const { handler } = this.context;
    const { leaseId } = command.data;
    const { result, position } = await handler.handle(async () => {
      const { loaded, events, plan } = await this.decideUpdate(command);
      // nothing changed for the lease: the calendars' working copies are dropped with it, and the answer
      // names the lease's latest event, so a read elsewhere that waits for it shows this lease
      if (events.length === 0) return { appends: [], result: { events: loaded.events, position: loaded.position } };
      const recorded = eventMetadata(command.metadata);
      const after = foldEvents(leaseDecider, events, loaded.state);
      const projectId = requireExisting(loaded.state, leaseId).lease.projectId;
      const fence = await this.admittedFence({ projectId, leaseId, before: loaded.state, after, now: command.metadata.now }, recorded);
      const appends = [
        appendTo(leaseStream(leaseId), loaded.revision, events, recorded, this.context.newId),
        ...plan.appends(recorded, this.context.newId),
        ...fence,
      ];
      return { appends, result: { events: [...loaded.events, ...events], position: 0 } };
    });
    return { leaseId, events: result.events, position: position || result.position };
  }

  /**
   * The update's events, decided on the stored lease and the calendars. Without `allocations` the
   * reservations are not readmitted (what max_lease_duration needs is the dates, read without the lock).
   */
  private async decideUpdate({ data: { leaseId, changes }, metadata }: UpdateLeaseCommand, { allocations } = { allocations: true }) {
    const { handler, index } = this.context;
    const loaded = await handler.load(leaseDecider, leaseStream(leaseId));
    const existing = requireExisting(loaded.state, leaseId);
    authorize(metadata.actor, LEASE_POLICY.update, leaseTarget(existing.lease));
    const { name, startDate, endDate, beforeEndDate } = changes;
    const leaseChanges: LeaseChanges = { name, startDate, endDate, beforeEndDate, reservationIds: changes.reservations.map((r) => r.id) };
    checkReservationIds(existing.lease, leaseChanges.reservationIds);
    checkResourceTypes(existing.lease.reservations, changes.reservations);
    const schedule = scheduleForUpdate(existing, leaseChanges, metadata.now);
    // the index is caught up only under the lock, where decisions read it
    if (allocations) await index.catchUp();
    const plan = bookingPlan(this.context);
    const started = hasStarted(existing);
    const admission =
      schedule === null || !allocations ? null : admissionContext(this.context, plan, { leaseId, ...schedule }, metadata.actor);
    const reservations =
      admission === null
        ? []
        : existing.lease.reservations.map((r) =>
            this.admissions.readmit(
              admission,
              r,
              changes.reservations.find((p) => p.id === r.id),
              started,
            ),
          );
    const decided = leaseDecider.decide(
      { type: 'UpdateLease', data: { leaseId, ...leaseChanges, reservations, now: metadata.now } },
      loaded.state,
    );
    const judged = admission === null || schedule === null || decided.length === 0;
    const events = judged
      ? decided
      : [...decided, ...decideHeadroom(this.headroomRule, plan, { leaseId, ...schedule }, metadata.actor, metadata.now)];
    return { loaded, existing, events, plan };
  }

  private get headroomRule() {
    return this.context.settings.guardrails?.freepoolHeadroom ?? NO_ZONE_RULE;
  }

  /** A lease that never started has no end effects to delete its trust: the delete releases it once recorded. */
  async delete(command: DeleteLeaseCommand): Promise<LeaseWritten> {
    const { written, before } = await this.recordDelete(command);
    if (before.status === 'Pending' && before.lease.trustId !== null) await this.trusts.release(before.lease.trustId, command.metadata);
    return written;
  }

  private async recordDelete({
    data: { leaseId },
    metadata,
  }: DeleteLeaseCommand): Promise<{ readonly written: LeaseWritten; readonly before: ExistingLease }> {
    const { handler, index, newId } = this.context;
    const { result, position } = await handler.handle(async () => {
      const loaded = await handler.load(leaseDecider, leaseStream(leaseId));
      const existing = requireExisting(loaded.state, leaseId);
      authorize(metadata.actor, LEASE_POLICY.remove, leaseTarget(existing.lease));
      const events = leaseDecider.decide({ type: 'DeleteLease', data: { leaseId, now: metadata.now } }, loaded.state);
      await index.catchUp();
      index.recallForgottenBookings(existing.lease);
      const plan = bookingPlan(this.context);
      const { startDate, endDate } = existing.lease;
      const admission = admissionContext(this.context, plan, { leaseId, startDate, endDate }, metadata.actor);
      for (const reservation of existing.lease.reservations) this.admissions.release(admission, reservation);
      const recorded = eventMetadata(metadata);
      const appends = [appendTo(leaseStream(leaseId), loaded.revision, events, recorded, newId), ...plan.appends(recorded, newId)];
      return { appends, result: { events: [...loaded.events, ...events] as readonly LeaseEvent[], before: existing } };
    });
    return { written: { leaseId, events: result.events, position }, before: result.before };
  }
}
