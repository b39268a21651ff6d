import { describe, expect, it } from 'vitest';
import type { LedgerEvent } from '../../bench/ledger-audit.js';
import { auditTimers } from './fault-checks.js';

const LEASE = '7077ac08-526c-4e1d-9fdb-94debc10142a';
const START = '2026-11-27T16:19:00.000Z';
const END = '2026-11-27T16:20:00.000Z';
const LATER = Date.parse('2026-11-27T16:21:00.000Z');

const logOf = (...steps: readonly (readonly [string, Record<string, unknown>?])[]): LedgerEvent[] =>
  steps.map(([type, data = {}], index) => ({ position: index + 1, streamId: `lease-${LEASE}`, type, data }));

/** Created, started, and its before-end action begun (the phase's outcome not yet recorded). */
const beforeEndRunning = (): (readonly [string, Record<string, unknown>?])[] => [
  ['Lease.Created', { startDate: START, endDate: END, beforeEndDate: START }],
  ['Lease.StartRequested'],
  ['Lease.Started'],
  ['Lease.BeforeEndRequested'],
];

describe('auditTimers', () => {
  it('owes a begun before-end action its outcome', () => {
    const audit = auditTimers(logOf(...beforeEndRunning()), LATER);
    expect(audit.missing).toEqual([
      `lease ${LEASE}: before_end due by 2026-11-27T16:21:00.000Z not recorded`,
      `lease ${LEASE}: end due by 2026-11-27T16:21:00.000Z not recorded`,
    ]);
  });

  it('owes nothing more of a before-end action whose lease was deleted while it ran: the end supersedes it', () => {
    const log = logOf(...beforeEndRunning(), ['Lease.EndRequested', { reason: 'deleted' }], ['Lease.Deleted'], ['Lease.Ended']);
    expect(auditTimers(log, LATER)).toEqual({ duplicates: [], missing: [], fired: 3 });
  });

  it('finds a scheduled end begun while the before-end action ran', () => {
    const log = logOf(...beforeEndRunning(), ['Lease.EndRequested', { reason: 'scheduled' }], ['Lease.Ended']);
    expect(auditTimers(log, LATER).duplicates).toEqual([expect.stringContaining("end fired at 5 while the lease's before_end ran")]);
  });

  it('finds a before-end outcome recorded after the end superseded the action', () => {
    const log = logOf(...beforeEndRunning(), ['Lease.EndRequested', { reason: 'deleted' }], ['Lease.BeforeEndCompleted'], ['Lease.Ended']);
    expect(auditTimers(log, LATER).duplicates).toEqual([expect.stringContaining('before_end recorded at 6 without being begun')]);
  });
});
