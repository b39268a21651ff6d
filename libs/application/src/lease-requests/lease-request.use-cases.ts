import {
  type ExistingLeaseRequest,
  type LeaseRequestEvent,
  MINUTE_MS,
  type RequestedReservation,
  foldEvents,
  leaseRequestDecider,
  leaseRequestNotFound,
  leaseRequestStream,
  requireRequest,
  toMs,
  truncateToMinute,
} from '#domain/index.js';
import { type ReservationRequest, isResourceType, reservationType } from '#plugins/reservation-types.js';
import type { WireValues } from '#plugins/reservation-wire.js';
import type { ApplicationContext } from '../application-context.js';
import { AvailabilityQueries, DEFAULT_HORIZON_DAYS } from '../availability/availability.queries.js';
import { isCapacityRefusal } from '../availability/window-search.js';
import { type Caller, authorize, leaseTarget } from '../caller.js';
import { type AppCommand, type CommandMetadata, appendTo, eventMetadata } from '../command.js';
import type { LeaseUseCases } from '../leases/lease.use-cases.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import { LeaseRequestBook } from './lease-request.book.js';

/** A lease request as a transport read it; null dates take their defaults (now; not_before plus the availability horizon). */
export interface LeaseRequestInput {
  readonly name: string;
  readonly reservations: readonly RequestedReservation[];
  readonly durationMinutes: number;
  readonly notBefore: string | null;
  readonly startBy: string | null;
}

export type SubmitLeaseRequestCommand = AppCommand<'SubmitLeaseRequest', LeaseRequestInput>;
export type WithdrawLeaseRequestCommand = AppCommand<'WithdrawLeaseRequest', { readonly requestId: string }>;

/** A request as the routes show it: its state, its rank in the queue (null unless queued), and where a written one ends in the log. */
export interface LeaseRequestRecord {
  readonly state: ExistingLeaseRequest;
  readonly position: number | null;
}

/** One request shown alone: also the earliest start the availability search finds for it now (null: none, or no longer queued). */
export interface LeaseRequestDetail extends LeaseRequestRecord {
  readonly predictedStart: string | null;
}

export interface LeaseRequestWritten {
  readonly detail: LeaseRequestDetail;
  /** Log position of the write. */
  readonly logPosition: number;
}

export const LEASE_REQUEST_POLICY = {
  get: ACTIONS.leaseRequestGet,
  submit: ACTIONS.leaseRequestPost,
  withdraw: ACTIONS.leaseRequestDelete,
} as const;

const DAY_MS = 24 * 60 * MINUTE_MS;
const iso = (ms: number): string => new Date(ms).toISOString();

/** A requested reservation as its type's admission takes it, parsed by its type's wire as when it was submitted. */
export const reservationRequestOf = ({ resourceType, values }: RequestedReservation): ReservationRequest => {
  if (!isResourceType(resourceType)) throw new Error(`No module for the ${resourceType} reservation type`);
  return reservationType(resourceType).wire.request(values as WireValues);
};

const targetOf = ({ request }: ExistingLeaseRequest) => leaseTarget(request);

/**
 * Lease requests (docs/queue.md): a lease asked for without dates. One that fits at its `not_before` when it is submitted
 * becomes a lease at once, through the lease's own create (its filters, quota and admission) with the request's events in
 * the same atomic append; one refused for capacity waits in the queue. Reads come from the write side's book.
 */
export class LeaseRequestUseCases {
  private readonly availability: AvailabilityQueries;
  private readonly book: LeaseRequestBook;

  constructor(
    private readonly context: ApplicationContext,
    private readonly leases: LeaseUseCases,
  ) {
    this.availability = new AvailabilityQueries(context);
    this.book = new LeaseRequestBook(context.handler.store);
  }

  async submit(command: SubmitLeaseRequestCommand): Promise<LeaseRequestWritten> {
    const { actor, now } = command.metadata;
    authorize(actor, LEASE_REQUEST_POLICY.submit);
    const { name, reservations, durationMinutes } = command.data;
    const notBefore = command.data.notBefore ?? now;
    const startBy = command.data.startBy ?? iso(toMs(notBefore) + DEFAULT_HORIZON_DAYS * DAY_MS);
    const owner = { requestId: this.context.newId(), projectId: actor.projectId, userId: actor.userId };
    const data = { ...owner, name, reservations, durationMinutes, notBefore, startBy, now };
    // judged before any lease is tried: a bad request is a 400 with nothing written
    const submitted = leaseRequestDecider.decide({ type: 'SubmitLeaseRequest', data }, leaseRequestDecider.initialState());
    const requests = reservations.map(reservationRequestOf);
    const logPosition = (await this.admitAtOnce(command.metadata, submitted, requests)) ?? (await this.queue(command.metadata, submitted));
    const detail = await this.detail(actor, owner.requestId, now);
    return { detail, logPosition };
  }

  /**
   * The lease of the request at its `not_before`, the request's events appended with it (the lease's naming the request as
   * their causation); null when capacity refuses it (any other refusal is the request's).
   */
  private async admitAtOnce(
    metadata: CommandMetadata,
    submitted: readonly LeaseRequestEvent[],
    reservations: readonly ReservationRequest[],
  ): Promise<number | null> {
    const request = foldEvents(leaseRequestDecider, submitted);
    if (request.status !== 'Queued') return null;
    const { requestId, name, notBefore, durationMinutes } = request.request;
    const lease = {
      name,
      startDate: notBefore,
      endDate: iso(toMs(notBefore) + durationMinutes * MINUTE_MS),
      beforeEndDate: null,
      reservations,
    };
    const recorded = eventMetadata(metadata);
    const appends = (leaseId: string) => {
      const admitted = leaseRequestDecider.decide({ type: 'AdmitLeaseRequest', data: { requestId, leaseId, now: metadata.now } }, request);
      return [appendTo(leaseRequestStream(requestId), 'no_stream', [...submitted, ...admitted], recorded, this.context.newId)];
    };
    try {
      const written = await this.leases.createWith({ type: 'CreateLease', data: lease, metadata }, { causationId: requestId, appends });
      return written.position;
    } catch (error) {
      if (isCapacityRefusal(error)) return null;
      throw error;
    }
  }

  private async queue(metadata: CommandMetadata, submitted: readonly LeaseRequestEvent[]): Promise<number> {
    const { handler, newId } = this.context;
    const requestId = (submitted[0] as LeaseRequestEvent).data.requestId;
    const { position } = await handler.handle(() => ({
      appends: [appendTo(leaseRequestStream(requestId), 'no_stream', submitted, eventMetadata(metadata), newId)],
      result: null,
    }));
    return position;
  }

  /** Only a queued request can be withdrawn (409 once admitted: the lease is deleted instead). */
  async withdraw(command: WithdrawLeaseRequestCommand): Promise<number> {
    const { handler, newId } = this.context;
    const { requestId } = command.data;
    const { position } = await handler.handle(async () => {
      const loaded = await handler.load(leaseRequestDecider, leaseRequestStream(requestId));
      authorize(command.metadata.actor, LEASE_REQUEST_POLICY.withdraw, targetOf(requireRequest(loaded.state, requestId)));
      const events = leaseRequestDecider.decide(
        { type: 'WithdrawLeaseRequest', data: { requestId, now: command.metadata.now } },
        loaded.state,
      );
      return {
        appends: [appendTo(leaseRequestStream(requestId), loaded.revision, events, eventMetadata(command.metadata), newId)],
        result: null,
      };
    });
    return position;
  }

  /** The caller's project's requests in submission order (an admin's: every project's). */
  async list(caller: Caller): Promise<LeaseRequestRecord[]> {
    authorize(caller, LEASE_REQUEST_POLICY.get);
    await this.book.catchUp();
    const positions = this.book.queuePositions();
    return this.book
      .list(caller.isAdmin ? null : caller.projectId)
      .filter((state) => caller.can(LEASE_REQUEST_POLICY.get, targetOf(state)))
      .map((state) => ({ state, position: positions.get(state.request.requestId) ?? null }));
  }

  /** 404 when there is no such request, then the policy on its project and user (403 for another project's); `now` ISO-8601 UTC. */
  async detail(caller: Caller, requestId: string, now: string): Promise<LeaseRequestDetail> {
    await this.book.catchUp();
    const state = this.book.request(requestId);
    if (state === undefined) throw leaseRequestNotFound(requestId);
    authorize(caller, LEASE_REQUEST_POLICY.get, targetOf(state));
    const position = this.book.queuePositions().get(requestId) ?? null;
    return { state, position, predictedStart: state.status === 'Queued' ? await this.predictedStart(caller, state, now) : null };
  }

  /**
   * The earliest start in [max(now, not_before), start_by] the availability search finds for the request's reservations, or
   * null; also null for a caller the search's own policy refuses (a reader may see the request, not search).
   */
  private async predictedStart(caller: Caller, { request }: ExistingLeaseRequest, now: string): Promise<string | null> {
    if (!caller.can(ACTIONS.availabilityGet) || toMs(request.startBy) < truncateToMinute(now)) return null;
    const { windows } = await this.availability.windows(
      caller,
      {
        reservations: request.reservations.map(reservationRequestOf),
        durationMinutes: request.durationMinutes,
        notBefore: request.notBefore,
        notAfter: iso(toMs(request.startBy) + request.durationMinutes * MINUTE_MS),
        limit: 1,
      },
      now,
    );
    return windows[0]?.startDate ?? null;
  }
}
