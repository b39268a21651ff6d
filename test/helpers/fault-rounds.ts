import { expect } from 'vitest';
import type { LedgerEvent } from '../../bench/ledger-audit.js';
import { auditTimers, brokenInvariants, differencesFromRebuild, headOf, logOf, missingAcknowledgedWrites } from './fault-checks.js';
import type { FaultWorkload } from './fault-workload.js';
import type { SystemProcesses } from '../../bench/system-processes.js';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const json = async (url: string): Promise<{ status: number; body: any } | null> => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return { status: response.status, body: await response.json() };
  } catch {
    return null;
  }
};

/** Polls `check` until it returns a value (not undefined); fails naming `what` (and the last state) after `timeoutMs`. */
export const until = async <T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  last: () => string = () => '',
): Promise<T> => {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}${last() === '' ? '' : `: ${last()}`}`);
    await sleep(100);
  }
};

/** The projector is ready and every projection has projected the whole log. */
export const projectorAtHead = async (system: SystemProcesses): Promise<void> => {
  let seen = '';
  await until(
    'the projector to reach the head of the log',
    async () => {
      const head = headOf(system.dataDir);
      const ready = await json(`${system.healthUrl('projector')}/readyz`);
      seen = `head ${head}, projector ${JSON.stringify(ready?.body ?? null)}`;
      const projections: { position: number; failure: unknown }[] = ready?.body?.projections ?? [];
      return ready?.status === 200 && projections.length > 0 && projections.every((p) => p.position === head && p.failure === null)
        ? true
        : undefined;
    },
    60_000,
    () => seen,
  );
};

/** Every timer due by the processes' clock has fired (none twice: that fails at once). */
export const timersSettled = async (system: SystemProcesses, clock: () => number): Promise<number> => {
  await until('the reactor to be ready', async () =>
    (await json(`${system.healthUrl('reactor')}/readyz`))?.status === 200 ? true : undefined,
  );
  let missing: string[] = [];
  return until(
    'every due timer to fire',
    async () => {
      const audit = auditTimers(logOf(system.dataDir), clock());
      expect(audit.duplicates, 'timers fired twice').toEqual([]);
      missing = audit.missing;
      return missing.length === 0 ? audit.fired : undefined;
    },
    60_000,
    () => `${missing.slice(0, 5).join('; ')}\n${reactorLinesAbout(system, missing.slice(0, 5))}`,
  );
};

/** For a failure message: the reactor's last log lines naming the leases of these missing timers. */
const reactorLinesAbout = (system: SystemProcesses, missing: readonly string[]): string => {
  const leaseIds = new Set(missing.flatMap((line) => /lease ([0-9a-f-]{36})/.exec(line)?.[1] ?? []));
  const lines = system
    .output('reactor')
    .split('\n')
    .filter((line) => [...leaseIds].some((id) => line.includes(id)));
  return `the reactor's last ${Math.min(lines.length, 40)} log lines about them:\n${lines.slice(-40).join('\n')}`;
};

export interface CheckOptions {
  /** The processes' wall clock (stepped by libfaketime), for what is due. */
  readonly clock?: () => number;
  /**
   * Phases whose effects failed are recorded outcomes, not crashes; on the standalone cloud none
   * should fail, except where the clock stepped back (a lease started "in the future" still holds
   * what the calendar gives to another from the new present).
   */
  readonly failedPhasesAllowed?: boolean;
}

const failedPhases = (log: readonly LedgerEvent[]): string[] =>
  log
    .filter((e) => /^(Lease\.\w+Failed|Reservation\.EffectsFailed)$/.test(e.type))
    .map((e) => `${e.streamId} ${e.type}: ${e.data.reason ?? e.data.error}`);

/**
 * The checks after each fault, with the workload paused: every due timer fired once; then, with the
 * reactor stopped so that nothing appends, the projector at the head and the read models equal to a
 * rebuild; every acknowledged write in the log as it was answered; no invariant broken; no phase
 * failed; no answer a client must not get; no process crashed on its own. The reactor is started again after.
 */
export const checkAfterFault = async (
  system: SystemProcesses,
  workload: FaultWorkload,
  label: string,
  options: CheckOptions = {},
): Promise<string> => {
  const clock = options.clock ?? (() => Date.now());
  const fired = await timersSettled(system, clock);
  await system.stopApp('reactor');
  try {
    await projectorAtHead(system);
    expect(await differencesFromRebuild(system.dataDir), `${label}: the read models differ from a rebuild`).toEqual([]);
    const log = logOf(system.dataDir);
    expect(missingAcknowledgedWrites(log, workload.acknowledged), `${label}: acknowledged writes missing from the log`).toEqual([]);
    expect(brokenInvariants(log), `${label}: invariants`).toEqual([]);
    const failed = failedPhases(log);
    if (options.failedPhasesAllowed !== true) expect(failed, `${label}: phases that failed`).toEqual([]);
    expect(workload.forbidden, `${label}: answers no client may get`).toEqual([]);
    expect(system.unexpectedExits, `${label}: processes that exited on their own`).toEqual([]);
    return `${label}: ${log.length} events, ${fired} phases fired, ${failed.length} failed, ${workload.summary()}`;
  } finally {
    await system.startApp('reactor');
  }
};
