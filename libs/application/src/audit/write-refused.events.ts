import type { DomainEvent } from '#domain/index.js';

/**
 * A write the API refused after reading it (a 403 of the policy, a 409 of the rules): who asked
 * (the event's metadata), what (the operation and its path) and why (the error's code and words).
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
  }
>;

export type AuditEvent = WriteRefused;

/** One stream per UTC day (`audit-2030-01-31`): a time range reads its days, never the whole log. */
export const auditStream = (day: string): string => `audit-${day}`;
