import { randomUUID } from 'node:crypto';
import {
  type HostReservation,
  type LeaseChanges,
  type LeaseEvent,
  type LeaseState,
  checkReservationIds,
  conflict,
  hasStarted,
  leaseDecider,
  leaseStream,
  requireExisting,
  scheduleForCreate,
  scheduleForUpdate,
} from '../../../../libs/domain/src/index.js';
import type { EventStore } from '../../../../libs/event-store/src/event-store.port.js';
import type { RequestContext } from '../http/request-context.js';
import { authorize, leaseTarget } from '../policy/authorize.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import { EMPTY_QUERY } from '../../../../libs/plugins/src/query/blazar-query.js';
import { buildHostRequest } from '../leases/host-reservation.parser.js';
import { AsyncMutex } from './async-mutex.js';
import { BookingPlan, type BookingWindow } from './booking-plan.js';
import { appendRequest, requestMetadata } from './event-envelope.js';
import type { CreateLeaseRequest, HostReservationRequest, ReservationPatch, UpdateLeaseRequest } from './lease-requests.js';
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
  readonly minutesBeforeEnd: number;
  readonly clock: () => Date;
}

interface LoadedLease {
  readonly state: LeaseState;
  readonly revision: number;
  readonly events: readonly LeaseEvent[];
}

const toReservation = (request: HostReservationRequest, id: string, hostIds: readonly string[]): HostReservation => ({
  id,
  resourceId: randomUUID(),
  resourceType: request.resourceType,
  min: request.min,
  max: request.max,
  hypervisorProperties: request.hypervisorProperties,
  resourceProperties: request.resourceProperties,
  beforeEnd: request.beforeEnd,
  hostIds,
});

const checkResourceTypes = (current: readonly HostReservation[], patches: readonly ReservationPatch[]): void => {
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
    return { state: events.reduce(leaseDecider.evolve, leaseDecider.initialState()), revision: recorded.length - 1, events };
  }

  create(request: CreateLeaseRequest, context: RequestContext): Promise<LeaseWriteResult> {
    const leaseId = randomUUID();
    const now = this.now();
    const schedule = scheduleForCreate(request, this.options.minutesBeforeEnd, now);
    const metadata = requestMetadata(context);
    return this.lock.run(() =>
      retryOnConflict(async () => {
        await this.index.catchUp();
        const plan = new BookingPlan(this.index, this.options.cleaningTimeMinutes);
        const reservations = request.reservations.map((r) => {
          const id = randomUUID();
          const window: BookingWindow = { leaseId, reservationId: id, ...schedule, propertyNames: r.propertyNames };
          const hostIds = plan.allocate({ min: r.min, max: r.max, query: r.query }, window);
          for (const hostId of hostIds) plan.book(hostId, window);
          return toReservation(r, id, hostIds);
        });
        const events = leaseDecider.decide(
          {
            type: 'CreateLease',
            data: {
              leaseId,
              name: request.name,
              projectId: context.actor.projectId,
              userId: context.actor.userId,
              trustId: null,
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
        const plan = new BookingPlan(this.index, this.options.cleaningTimeMinutes);
        const reservations =
          schedule === null ? [] : this.reallocate(plan, existing.lease.reservations, request.reservations, { leaseId, ...schedule }, hasStarted(existing));
        const events = leaseDecider.decide({ type: 'UpdateLease', data: { leaseId, ...changes, reservations, now } }, loaded.state);
        if (events.length === 0) return { leaseId, events: loaded.events, position: 0 };
        const result = await this.store.appendMultiple([appendRequest(leaseStream(leaseId), loaded.revision, events, metadata), ...plan.appends(metadata)]);
        return { leaseId, events: [...loaded.events, ...events], position: result.position };
      }),
    );
  }

  private reallocate(
    plan: BookingPlan,
    current: readonly HostReservation[],
    patches: readonly ReservationPatch[],
    schedule: { readonly leaseId: string; readonly startDate: string; readonly endDate: string },
    started: boolean,
  ): HostReservation[] {
    return current.map((reservation) => {
      const patch = patches.find((p) => p.id === reservation.id);
      const wanted = buildHostRequest({
        min: patch?.min ?? reservation.min,
        max: patch?.max ?? reservation.max,
        hypervisorProperties: patch?.hypervisorProperties ?? reservation.hypervisorProperties,
        resourceProperties: patch?.resourceProperties ?? reservation.resourceProperties,
        beforeEnd: patch?.beforeEnd ?? reservation.beforeEnd,
      });
      const window: BookingWindow = { ...schedule, reservationId: reservation.id, propertyNames: wanted.propertyNames };
      const hostIds = this.chooseHosts(plan, reservation, wanted, window, started);
      for (const hostId of reservation.hostIds) if (!hostIds.includes(hostId)) plan.release(hostId, reservation.id);
      for (const hostId of hostIds) {
        if (reservation.hostIds.includes(hostId)) plan.move(hostId, window);
        else plan.book(hostId, window);
      }
      const { query: _query, propertyNames: _names, ...fields } = wanted;
      return { ...reservation, ...fields, hostIds };
    });
  }

  /** A started reservation keeps exactly its hosts (they are already in its aggregate); a pending one may move. */
  private chooseHosts(plan: BookingPlan, reservation: HostReservation, wanted: HostReservationRequest, window: BookingWindow, started: boolean): readonly string[] {
    const keep = { reservationId: reservation.id, keepHostIds: reservation.hostIds };
    if (!started) return plan.allocate({ min: wanted.min, max: wanted.max, query: wanted.query, ...keep }, window);
    const own = plan.snapshots().filter((host) => reservation.hostIds.includes(host.id));
    const count = reservation.hostIds.length;
    return plan.allocate({ min: count, max: count, query: EMPTY_QUERY, ...keep }, window, own);
  }

  delete(leaseId: string, context: RequestContext): Promise<LeaseWriteResult> {
    const metadata = requestMetadata(context);
    return this.lock.run(() =>
      retryOnConflict(async () => {
        const loaded = await this.loadLease(leaseId);
        authorize(context, ACTIONS.leaseDelete, leaseTarget(requireExisting(loaded.state, leaseId).lease));
        const events = leaseDecider.decide({ type: 'DeleteLease', data: { leaseId, now: this.now() } }, loaded.state);
        await this.index.catchUp();
        const plan = new BookingPlan(this.index, this.options.cleaningTimeMinutes);
        const lease = requireExisting(loaded.state, leaseId).lease;
        for (const reservation of lease.reservations) for (const hostId of reservation.hostIds) plan.release(hostId, reservation.id);
        const result = await this.store.appendMultiple([appendRequest(leaseStream(leaseId), loaded.revision, events, metadata), ...plan.appends(metadata)]);
        return { leaseId, events: [...loaded.events, ...events], position: result.position };
      }),
    );
  }
}
