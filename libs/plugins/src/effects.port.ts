import type { EffectPhase, EffectRecord, Leftover, Reservation } from '#domain/index.js';

/** What an effects adapter needs to know to act for one reservation in one lease phase or update. */
export interface EffectContext {
  /** Stable per (source event, reaction): the same key on every retry, so adapters can de-duplicate. */
  readonly idempotencyKey: string;
  readonly leaseId: string;
  readonly projectId: string;
  readonly phase: EffectPhase;
  /** Hostnames (or other cloud names) of the reservation's allocated resources, resolved by the reactor. */
  readonly resourceNames: Readonly<Record<string, string>>;
  /**
   * The lease's Keystone trust (tenant -> Leasehold's service user), made at create in auth mode keystone
   * on OpenStack: adapters act through it as the tenant. Null or absent: no trust, Leasehold acts as itself.
   */
  readonly trustId?: string | null;
}

/** An expected cloud failure: recorded as an outcome event, not retried. */
export class EffectFailedError extends Error {
  constructor(
    message: string,
    readonly effects: readonly EffectRecord[],
  ) {
    super(message);
    this.name = 'EffectFailedError';
  }
}

/**
 * Side effects of one resource type at a lease's start, before-end and end, and when an active
 * reservation changes. Only the reactor calls these. Each call must be idempotent: repeating it after
 * a crash finishes the work without doing anything twice (check before create, tolerate not-found on
 * delete). Returns what it did. Throws EffectFailedError for an outcome to record, anything else for
 * a transient failure to retry.
 */
export interface ReservationEffects<R extends Reservation = Reservation> {
  onStart(context: EffectContext, reservation: R): Promise<readonly EffectRecord[]>;
  beforeEnd(context: EffectContext, reservation: R): Promise<readonly EffectRecord[]>;
  onEnd(context: EffectContext, reservation: R): Promise<readonly EffectRecord[]>;
  /** Converges an active reservation's cloud state to its (changed) allocations. */
  onUpdate(context: EffectContext, reservation: R): Promise<readonly EffectRecord[]>;
  /** After its lease ended: what of the reservation's its end should have removed is still in the cloud (reads only). */
  leftovers(context: EffectContext, reservation: R): Promise<readonly Leftover[]>;
}

/** Lease-level effects of a lease's Keystone trust; only the reactor calls these. */
export interface LeaseTrustEffects {
  /** After the lease's end effects: the trust goes (already gone counts as done). Throws as ReservationEffects do. */
  deleteTrust(context: EffectContext, trustId: string): Promise<readonly EffectRecord[]>;
}

export type EffectsRegistry = {
  readonly [T in Reservation['resourceType']]: ReservationEffects<Extract<Reservation, { resourceType: T }>>;
} & {
  /** Absent where leases have no trusts (standalone). */
  readonly trusts?: LeaseTrustEffects;
};

/** Marks a step that a retry found already done (after a crash mid-call): the record says the state holds. */
export const done = (record: EffectRecord, changed: boolean): EffectRecord => (changed ? record : { ...record, already: true });
