import { randomUUID } from 'node:crypto';
import {
  type AllocationRatios,
  type ExistingLease,
  type Reservation,
  type LeaseChanges,
  type LeaseEvent,
  type LeaseState,
  checkReservationIds,
  conflict,
  hasStarted,
  isDomainError,
  leaseDecider,
  leaseStream,
  requireExisting,
  scheduleForCreate,
  scheduleForUpdate,
} from '../../../../libs/domain/src/index.js';
import type { EventStore } from '../../../../libs/event-store/src/event-store.port.js';
import type { LeaseTrusts } from '../auth/lease-trusts.js';
import type { RequestContext } from '../http/request-context.js';
import { authorize, leaseTarget } from '../policy/authorize.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import { AsyncMutex } from './async-mutex.js';
import { BookingPlan } from './booking-plan.js';
import { appendRequest, requestMetadata } from './event-envelope.js';
import type { CreateLeaseRequest, ReservationPatch, UpdateLeaseRequest } from './lease-requests.js';
import { type AdmissionSchedule, ReservationAdmission } from './reservation-admission.js';
import { retryOnConflict } from './retry.js';
import type { WriteIndex } from './write-index.js';

export interface LeaseWriteResult {
  readonly leaseId: string;
  /** Every event of the lease stream after the write, for building the response. */
  readonly events: readonly LeaseEvent[];
  readonly position: number;
}

export interface LeaseWriterOptions {
  readonly cleaningTimeMinutes: number;
  /** Nova's cpu/ram/disk allocation ratios for instance slots. */
  readonly allocationRatios: AllocationRatios;
  readonly minutesBeforeEnd: number;
  readonly clock: () => Date;
  /** The new lease's Keystone trust (none outside auth mode keystone on OpenStack). */
  readonly trusts: LeaseTrusts;
}

interface LoadedLease {
  readonly state: LeaseState;
  readonly revision: number;
  readonly events: readonly LeaseEvent[];
  /** Log position of the stream's last event: what a read must include to show this state. */
  readonly position: number;
}

const checkResourceTypes = (current: readonly Reservation[], patches: readonly ReservationPatch[]): void => {
  for (const patch of patches) {
    const reservation = current.find((r) => r.id === patch.id);
    if (patch.resourceType !== null && reservation !== undefined && patch.resourceType !== reservation.resourceType) {
      throw conflict('CANT_UPDATE_PARAMETER', 'resource_type cannot be updated');
    }
  }
};

/** Lease commands: validate, allocate against the hosts' calendars, append lease + bookings atomically. */
export class LeaseWriter {
  // one admission at a time per process avoids self-inflicted revision conflicts; other processes are fenced by revisions
  private readonly lock = new AsyncMutex();

  constructor(
    private readonly store: EventStore,
    private readonly index: WriteIndex,
    private readonly options: LeaseWriterOptions,
  ) {}

  private now(): string {
    return this.options.clock().toISOString();
  }

  async loadLease(leaseId: string): Promise<LoadedLease> {
    const recorded = await this.store.readStream(leaseStream(leaseId));
    const events = recorded.map((e) => ({ type: e.type, data: e.data }) as LeaseEvent);
    const position = recorded.at(-1)?.position ?? 0;
    return { state: events.reduce(leaseDecider.evolve, leaseDecider.initialState()), revision: recorded.length - 1, events, position };
  }

  /** The trust comes first (Keystone may refuse it: nothing recorded); a lease refused after it takes it back. */
  async create(request: CreateLeaseRequest, context: RequestContext): Promise<LeaseWriteResult> {
    const trustId = await this.options.trusts.create(context);
    try {
      return await this.createWithTrust(request, context, trustId);
    } catch (error) {
      if (trustId !== null && isDomainError(error)) await this.options.trusts.discard(trustId, context);
      throw error;
    }
  }

  private createWithTrust(request: CreateLeaseRequest, context: RequestContext, trustId: string | null): Promise<LeaseWriteResult> {
    const leaseId = randomUUID();
    const now = this.now();
    const schedule = scheduleForCreate(request, this.options.minutesBeforeEnd, now);
    const metadata = requestMetadata(context);
    return this.lock.run(() =>
      retryOnConflict(async () => {
        await this.index.catchUp();
        const plan = this.plan();
        const admission = this.admission(plan, { leaseId, ...schedule }, context);
        const reservations = request.reservations.map((r) => admission.admit(r));
        const events = leaseDecider.decide(
          {
            type: 'CreateLease',
            data: {
              leaseId,
              name: request.name,
              projectId: context.actor.projectId,
              userId: context.actor.userId,
              trustId,
              startDate: request.startDate,
              endDate: request.endDate,
              beforeEndDate: request.beforeEndDate,
              reservations,
              eventIds: { start: randomUUID(), end: randomUUID(), beforeEnd: randomUUID() },
              minutesBeforeEnd: this.options.minutesBeforeEnd, now,
            },
          },
          leaseDecider.initialState(),
        );
        const result = await this.store.appendMultiple([appendRequest(leaseStream(leaseId), 'no_stream', events, metadata), ...plan.appends(metadata)]);
        return { leaseId, events, position: result.position };
      }),
    );
  }

  update(leaseId: string, request: UpdateLeaseRequest, context: RequestContext): Promise<LeaseWriteResult> {
    const metadata = requestMetadata(context);
    return this.lock.run(() =>
      retryOnConflict(async () => {
        const now = this.now();
        const loaded = await this.loadLease(leaseId);
        const existing = requireExisting(loaded.state, leaseId);
        authorize(context, ACTIONS.leasePut, leaseTarget(existing.lease));
        const changes: LeaseChanges = { ...request, reservationIds: request.reservations.map((r) => r.id) };
        checkReservationIds(existing.lease, changes.reservationIds);
        checkResourceTypes(existing.lease.reservations, request.reservations);
        const schedule = scheduleForUpdate(existing, changes, now);
        await this.index.catchUp();
        const plan = this.plan();
        const started = hasStarted(existing);
        const reservations =
          schedule === null
            ? []
            : existing.lease.reservations.map((reservation) =>
                this.admission(plan, { leaseId, ...schedule }, context).readmit(
                  reservation,
                  request.reservations.find((p) => p.id === reservation.id),
                  started,
                ),
              );
        const events = leaseDecider.decide({ type: 'UpdateLease', data: { leaseId, ...changes, reservations, now } }, loaded.state);
        if (events.length === 0) return { leaseId, events: loaded.events, position: loaded.position };
        const result = await this.store.appendMultiple([appendRequest(leaseStream(leaseId), loaded.revision, events, metadata), ...plan.appends(metadata)]);
        return { leaseId, events: [...loaded.events, ...events], position: result.position };
      }),
    );
  }

  private plan(): BookingPlan {
    return new BookingPlan(this.index, { cleaningTimeMinutes: this.options.cleaningTimeMinutes, allocationRatios: this.options.allocationRatios });
  }

  private admission(plan: BookingPlan, schedule: AdmissionSchedule, context: RequestContext): ReservationAdmission {
    return new ReservationAdmission(plan, this.index.flavorCatalog().state.flavors, schedule, { isAdmin: context.isAdmin });
  }

  /** A lease that never started has no end effects to delete its trust: the delete releases it once recorded. */
  async delete(leaseId: string, context: RequestContext): Promise<LeaseWriteResult> {
    const { result, before } = await this.deleteRecorded(leaseId, context);
    if (before.status === 'Pending' && before.lease.trustId !== null) await this.options.trusts.release(before.lease.trustId, context);
    return result;
  }

  private deleteRecorded(leaseId: string, context: RequestContext): Promise<{ readonly result: LeaseWriteResult; readonly before: ExistingLease }> {
    const metadata = requestMetadata(context);
    return this.lock.run(() =>
      retryOnConflict(async () => {
        const loaded = await this.loadLease(leaseId);
        const existing = requireExisting(loaded.state, leaseId);
        authorize(context, ACTIONS.leaseDelete, leaseTarget(existing.lease));
        const events = leaseDecider.decide({ type: 'DeleteLease', data: { leaseId, now: this.now() } }, loaded.state);
        await this.index.catchUp();
        const plan = this.plan();
        const admission = this.admission(plan, existing.lease, context);
        for (const reservation of existing.lease.reservations) admission.release(reservation);
        const result = await this.store.appendMultiple([appendRequest(leaseStream(leaseId), loaded.revision, events, metadata), ...plan.appends(metadata)]);
        return { result: { leaseId, events: [...loaded.events, ...events], position: result.position }, before: existing };
      }),
    );
  }
}
