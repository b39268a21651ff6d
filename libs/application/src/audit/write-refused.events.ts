import type { DomainEvent } from '#domain/index.js';

/**
 * A write the API refused after reading it (a 403 of the policy, a 409 of the rules): who asked
 * (the event's metadata), what (the operation, its path and the lease it named) and why (the error's code and words).
 * Recorded in the audit log, never in the ledger: it changes no state.
 */
export type WriteRefused = DomainEvent<
  'Audit.WriteRefused',
  {
    readonly operation: string;
    readonly method: string;
    readonly path: string;
    readonly status: number;
    readonly code: string;
    readonly reason: string;
    readonly at: string;
    /** The lease the write was about: its id (a change, a deletion) or the name a refused create asked for; null: not a lease's. */
    readonly leaseId: string | null;
    readonly leaseName: string | null;
  }
>;

/** The lease a refused write was about, as far as the request said. */
export interface RefusedLease {
  readonly id: string | null;
  readonly name: string | null;
}

/** A refusal recorded before the lease was named names none: its upcaster (event-versions.ts) sets both fields null. */
export const refusedLeaseOf = (data: WriteRefused['data']): RefusedLease => ({ id: data.leaseId, name: data.leaseName });

/** ` for lease <id>`, ` for lease "<name>"`, or nothing. */
export const describeRefusedLease = ({ id, name }: RefusedLease): string => {
  if (id !== null) return ` for lease ${id}`;
  return name === null ? '' : ` for lease ${JSON.stringify(name)}`;
};

export type AuditEvent = WriteRefused;

/** One stream per UTC day (`audit-2030-01-31`): a time range reads its days, never the whole log. */
export const auditStream = (day: string): string => `audit-${day}`;
