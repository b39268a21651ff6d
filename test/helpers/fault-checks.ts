import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { dumpReadModel } from '#projector/dump-read-model.js';
import { openReadModel } from '#read-model/index.js';
import {
  type LedgerEvent,
  allHolds,
  doubleBookedAddresses,
  foldLedger,
  ledgerHead,
  overCapacityInstants,
  readLedger,
  wholeHostClashes,
} from '../../bench/ledger-audit.js';
import type { Acknowledged } from './fault-workload.js';
import { ROOT } from './system.js';

/**
 * What must hold after every fault, read from the raw log (bench/ledger-audit.ts's reading, not the
 * production deciders) and from the read models: each check returns its violations, empty when it holds.
 */

const run = promisify(execFile);

const byLease = (events: readonly LedgerEvent[]): Map<string, LedgerEvent[]> => {
  const leases = new Map<string, LedgerEvent[]>();
  for (const event of events) {
    if (!event.streamId.startsWith('lease-')) continue;
    const id = event.streamId.slice('lease-'.length);
    leases.set(id, [...(leases.get(id) ?? []), event]);
  }
  return leases;
};

/** Blazar's `YYYY-MM-DDTHH:MM:SS.ffffff` (UTC) and the log's ISO strings, as epoch ms. */
const instant = (value: string): number => Date.parse(value.endsWith('Z') ? value : `${value}Z`);

/** The lease's name and end as the log says they were at `position`. */
const leaseAt = (events: readonly LedgerEvent[], position: number): { name: string; endMs: number } | null => {
  const upTo = events.filter((event) => event.position <= position);
  const created = upTo.find((event) => event.type === 'Lease.Created');
  if (created === undefined) return null;
  const lease = { name: created.data.name as string, endMs: instant(created.data.endDate) };
  for (const event of upTo) {
    if (event.type === 'Lease.Renamed') lease.name = event.data.name;
    else if (event.type === 'Lease.Rescheduled') lease.endMs = instant(event.data.endDate);
  }
  return lease;
};

/** Every acknowledged write is in the log, at or before the position it was answered with, as it was answered. */
export const missingAcknowledgedWrites = (events: readonly LedgerEvent[], acknowledged: readonly Acknowledged[]): string[] => {
  const leases = byLease(events);
  const head = events.at(-1)?.position ?? 0;
  const missing: string[] = [];
  for (const ack of acknowledged) {
    const stream = leases.get(ack.leaseId) ?? [];
    const what = `${ack.kind} of lease ${ack.leaseId} acknowledged at ${ack.position}`;
    if (ack.position > head) missing.push(`${what}: the log ends at ${head}`);
    else if (ack.kind === 'delete') {
      if (!stream.some((e) => e.type === 'Lease.Deleted' && e.position <= ack.position)) missing.push(`${what}: no Lease.Deleted`);
    } else {
      const logged = leaseAt(stream, ack.position);
      const shown = ack.lease;
      if (logged === null) missing.push(`${what}: no Lease.Created`);
      else if (shown !== null && (logged.name !== shown.name || logged.endMs !== instant(shown.end_date))) {
        missing.push(`${what}: the log says ${JSON.stringify(logged)}, the answer said ${JSON.stringify(shown)}`);
      }
    }
  }
  return missing;
};

export interface InvariantOptions {
  readonly cleaningMinutes?: number;
}

/** No over-capacity instant, no whole host or address booked twice, no booking outside its resource's stream. */
export const brokenInvariants = (events: readonly LedgerEvent[], options: InvariantOptions = {}): string[] => {
  const fold = foldLedger(events);
  const hostHolds = allHolds(fold.hostHolds);
  const cleaningMs = (options.cleaningMinutes ?? 0) * 60_000;
  return [
    ...overCapacityInstants(fold.hosts, hostHolds, { cpu: 1, ram: 1, disk: 1 }).map((o) => `over capacity: ${JSON.stringify(o)}`),
    ...wholeHostClashes(hostHolds, cleaningMs).map((c) => `whole host booked twice: ${c}`),
    ...doubleBookedAddresses(allHolds(fold.ipHolds), cleaningMs).map((c) => `address booked twice: ${c}`),
    ...fold.misfiled.map((m) => `misfiled: ${m}`),
  ];
};

export interface TimerAudit {
  /** A timer that fired twice, or fired when it must not have (a start after the lease was deleted). */
  readonly duplicates: string[];
  /** A timer due by `nowMs` that has not fired (yet). */
  readonly missing: string[];
  /** How many phases fired (begun) in all. */
  readonly fired: number;
}

/** `superseded`: the end began while it ran (the lease was deleted), and its outcome is owed no more. */
type BeforeEnd = 'undone' | 'requested' | 'done' | 'superseded';

interface LeaseTimers {
  startMs: number;
  endMs: number;
  beforeEndMs: number | null;
  beforeEnd: BeforeEnd;
  startRequested: number;
  startDone: number;
  started: boolean;
  endRequested: number;
  endDone: number;
  deleted: boolean;
  deletedBeforeStart: boolean;
}

const PHASE_DONE = new Set(['Lease.Started', 'Lease.StartFailed']);
const END_DONE = new Set(['Lease.Ended', 'Lease.EndFailed']);
const BEFORE_END_DONE = new Set(['Lease.BeforeEndCompleted', 'Lease.BeforeEndFailed']);

/** One lease's timers from its events, with its own reading of the rules (not the production decider's). */
const foldTimers = (events: readonly LedgerEvent[], problem: (text: string) => void): LeaseTimers | null => {
  let t: LeaseTimers | null = null;
  for (const { type, data, position } of events) {
    if (type === 'Lease.Created') {
      t = {
        startMs: instant(data.startDate),
        endMs: instant(data.endDate),
        beforeEndMs: data.beforeEndDate === null ? null : instant(data.beforeEndDate),
        beforeEnd: 'undone',
        startRequested: 0,
        startDone: 0,
        started: false,
        endRequested: 0,
        endDone: 0,
        deleted: false,
        deletedBeforeStart: false,
      };
      continue;
    }
    if (t === null) continue;
    if (type === 'Lease.Rescheduled') {
      const beforeEndMs = data.beforeEndDate === null ? null : instant(data.beforeEndDate);
      // a before-end action that already ran runs again when its date moves (as upstream)
      if (beforeEndMs !== t.beforeEndMs && t.beforeEnd !== 'requested') t.beforeEnd = 'undone';
      Object.assign(t, { startMs: instant(data.startDate), endMs: instant(data.endDate), beforeEndMs });
    } else if (type === 'Lease.StartRequested') {
      t.startRequested++;
      if (t.startRequested > 1) problem(`start fired twice (again at ${position})`);
      if (t.deleted) problem(`start fired at ${position} after the lease was deleted`);
    } else if (PHASE_DONE.has(type)) {
      t.startDone++;
      t.started = t.started || type === 'Lease.Started';
      if (t.startDone > t.startRequested) problem(`start recorded ${t.startDone} times for ${t.startRequested} begun (at ${position})`);
    } else if (type === 'Lease.BeforeEndRequested') {
      if (t.beforeEnd !== 'undone') problem(`before_end fired again at ${position} without its date moving`);
      t.beforeEnd = 'requested';
    } else if (BEFORE_END_DONE.has(type)) {
      if (t.beforeEnd !== 'requested') problem(`before_end recorded at ${position} without being begun`);
      t.beforeEnd = 'done';
    } else if (type === 'Lease.EndRequested') {
      t.endRequested++;
      if (t.endRequested > 1) problem(`end fired twice (again at ${position})`);
      if (data.reason === 'scheduled' && t.started && t.beforeEnd === 'undone' && t.beforeEndMs !== null)
        problem(`end fired at ${position} before the lease's before_end`);
      if (data.reason === 'scheduled' && t.beforeEnd === 'requested') problem(`end fired at ${position} while the lease's before_end ran`);
      // a lease deleted while its before-end action runs: the end supersedes that action, whose outcome is owed no more
      if (t.beforeEnd === 'requested') t.beforeEnd = 'superseded';
    } else if (END_DONE.has(type)) {
      t.endDone++;
      if (t.endDone > t.endRequested) problem(`end recorded ${t.endDone} times for ${t.endRequested} begun (at ${position})`);
    } else if (type === 'Lease.Deleted') {
      t.deleted = true;
      t.deletedBeforeStart = t.startRequested === 0;
    }
  }
  return t;
};

/** What is owed by `nowMs` and has not been recorded (yet). */
const owedTimers = (t: LeaseTimers, nowMs: number): string[] => {
  const owed: string[] = [];
  if (!t.deletedBeforeStart && t.startMs <= nowMs && (t.startRequested === 0 || t.startDone === 0)) owed.push('start');
  // an active lease runs its before-end action at its date (and before its end)
  const active = t.started && !t.deleted && t.endRequested === 0;
  if (t.beforeEnd === 'requested' || (active && t.beforeEnd === 'undone' && t.beforeEndMs !== null && t.beforeEndMs <= nowMs))
    owed.push('before_end');
  // started (or failed to): ended at its end date, or at once when deleted
  if (t.startDone > 0 && (t.deleted || t.endMs <= nowMs) && (t.endRequested === 0 || t.endDone === 0)) owed.push('end');
  return owed;
};

/**
 * Every timer fires exactly once: for each lease in the log, each phase due by `nowMs` (start,
 * before_end, end; the end of a lease deleted while started) is begun and recorded once, never twice,
 * and a lease deleted before it started never starts.
 */
export const auditTimers = (events: readonly LedgerEvent[], nowMs: number): TimerAudit => {
  const duplicates: string[] = [];
  const missing: string[] = [];
  let fired = 0;
  for (const [leaseId, stream] of byLease(events)) {
    const history = (): string => stream.map((e) => `${e.position} ${e.type}`).join(', ');
    const timers = foldTimers(stream, (text) => duplicates.push(`lease ${leaseId}: ${text} (${history()})`));
    if (timers === null) continue;
    fired += timers.startRequested + timers.endRequested + stream.filter((e) => e.type === 'Lease.BeforeEndRequested').length;
    for (const phase of owedTimers(timers, nowMs))
      missing.push(`lease ${leaseId}: ${phase} due by ${new Date(nowMs).toISOString()} not recorded`);
  }
  return { duplicates, missing, fired };
};

/**
 * The live read model against a rebuild from the log (the projector must have reached the log's head,
 * and nothing may append meanwhile): the tables that differ, with their first differing row.
 */
export const differencesFromRebuild = async (dataDir: string): Promise<string[]> => {
  const scratch = mkdtempSync(join(tmpdir(), 'leasehold-fault-rebuild-'));
  const target = join(scratch, 'rebuilt.sqlite');
  try {
    await run(process.execPath, [join(ROOT, 'dist/apps/projector/src/rebuild.js'), '--target', target], {
      env: { ...process.env, LEASEHOLD_DATA_DIR: dataDir },
    });
    const live = await openReadModel({ kind: 'sqlite', file: join(dataDir, 'read-model.sqlite') });
    const copy = await openReadModel({ kind: 'sqlite', file: target });
    try {
      const [liveDump, copyDump] = [await dumpReadModel(live), await dumpReadModel(copy)];
      return Object.keys({ ...liveDump, ...copyDump }).flatMap((table) => {
        const [a, b] = [liveDump[table] ?? [], copyDump[table] ?? []];
        if (JSON.stringify(a) === JSON.stringify(b)) return [];
        const at = a.findIndex((row, i) => JSON.stringify(row) !== JSON.stringify(b[i]));
        return [
          `${table}: ${a.length} live rows, ${b.length} rebuilt; first difference at ${at}: live ${JSON.stringify(a[at])}, rebuilt ${JSON.stringify(b[at])}`,
        ];
      });
    } finally {
      await live.close();
      await copy.close();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
};

export const logOf = (dataDir: string): LedgerEvent[] => readLedger(join(dataDir, 'events.sqlite'));

export const headOf = (dataDir: string): number => ledgerHead(join(dataDir, 'events.sqlite'));
