import { DateTime } from 'luxon';
import { type DomainError, invalid } from '#domain/index.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { type Caller, authorize } from '../caller.js';
import { type CommandMetadata, eventMetadata } from '../command.js';
import { type HistoryEntry, historyEntry } from '../history/history-entry.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import { type RefusedLease, type WriteRefused, auditStream } from './write-refused.events.js';

/** What the transport knows of a refused write: its operation, how it was sent, and the HTTP status it got. */
export interface Refusal {
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly lease: RefusedLease;
  readonly error: DomainError;
}

export interface AuditFilter {
  /** ISO-8601 UTC, inclusive. */
  readonly start: string;
  /** ISO-8601 UTC, exclusive. */
  readonly end: string;
  readonly projectId: string | null;
}

/** A range reads one stream per day: a year is as far as one request goes. */
export const MAX_AUDIT_DAYS = 366;

const dayOf = (iso: string): string => DateTime.fromISO(iso, { zone: 'utc' }).toISODate() as string;

const daysOf = (start: string, end: string): string[] => {
  const first = DateTime.fromISO(start, { zone: 'utc' }).startOf('day');
  const last = DateTime.fromISO(end, { zone: 'utc' });
  const count = Math.ceil(last.diff(first, 'days').days);
  if (count > MAX_AUDIT_DAYS) throw invalid('AUDIT_RANGE_TOO_LONG', `The range from start to end spans more than ${MAX_AUDIT_DAYS} days`);
  return Array.from({ length: Math.max(count, 0) }, (_, offset) => first.plus({ days: offset }).toISODate() as string);
};

/**
 * The audit log of refused writes: a log of its own (its own store), so the ledger, its positions
 * and every read model stay exactly as they were. Its only appender is `record`.
 */
export class WriteRefusals {
  constructor(
    private readonly audit: EventStore,
    private readonly newId: () => string,
  ) {}

  async record(metadata: CommandMetadata, { operation, method, path, status, lease, error }: Refusal): Promise<void> {
    const event: WriteRefused = {
      type: 'Audit.WriteRefused',
      data: {
        operation,
        method,
        path,
        status,
        code: error.code,
        reason: error.message,
        at: metadata.now,
        leaseId: lease.id,
        leaseName: lease.name,
      },
    };
    await this.audit.appendToStream(auditStream(dayOf(metadata.now)), 'any', [
      { id: this.newId(), ...event, metadata: eventMetadata(metadata) },
    ]);
  }

  /** Admin only (`leasehold:audit:get`): refusals decided in [start, end), of one project when asked, oldest first. */
  async list(caller: Caller, { start, end, projectId }: AuditFilter): Promise<HistoryEntry[]> {
    authorize(caller, ACTIONS.auditGet);
    if (end <= start) throw invalid('AUDIT_RANGE_EMPTY', 'end must be after start');
    const from = DateTime.fromISO(start, { zone: 'utc' }).toMillis();
    const to = DateTime.fromISO(end, { zone: 'utc' }).toMillis();
    const streams = await Promise.all(daysOf(start, end).map((day) => this.audit.readStream(auditStream(day))));
    return streams
      .flat()
      .filter((event) => {
        const at = DateTime.fromISO((event.data as WriteRefused['data']).at, { zone: 'utc' }).toMillis();
        return at >= from && at < to && (projectId === null || event.metadata.actor?.projectId === projectId);
      })
      .sort((a, b) => a.position - b.position)
      .map((event) => historyEntry({ ...event, type: 'Audit.WriteRefused' }));
  }
}
