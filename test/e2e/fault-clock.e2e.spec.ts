import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logOf } from '../helpers/fault-checks.js';
import { checkAfterFault, sleep, until } from '../helpers/fault-rounds.js';
import { FaultWorkload } from '../helpers/fault-workload.js';
import { SystemProcesses } from '../../bench/system-processes.js';

const SEED = Number(process.env.LEASEHOLD_FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));
const HOUR = 3_600_000;
const MINUTE = 60_000;

/** Debian's libfaketime (scripts/services/faketime.sh installs it); the thread-safe build, as Node runs threads. */
const LIBFAKETIME = ['x86_64', 'aarch64']
  .map((arch) => `/usr/lib/${arch}-linux-gnu/faketime/libfaketimeMT.so.1`)
  .find((file) => existsSync(file));

const requestDate = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

/**
 * The processes' wall clock, stepped by rewriting libfaketime's timestamp file (read on every call).
 * The monotonic clock is left alone (FAKETIME_DONT_FAKE_MONOTONIC): a real step (NTP, a resumed VM)
 * moves CLOCK_REALTIME only, and Node's timers run on CLOCK_MONOTONIC; faking it too would freeze
 * every timer of a process for the size of a backward step, which no real clock does.
 */
class SteppedClock {
  offsetMs = 0;

  constructor(readonly file: string) {
    this.step(0);
  }

  step(offsetMs: number): void {
    this.offsetMs = offsetMs;
    writeFileSync(this.file, `${offsetMs >= 0 ? '+' : '-'}${Math.abs(offsetMs) / 1000}\n`);
  }

  now(): number {
    return Date.now() + this.offsetMs;
  }

  env(): Record<string, string> {
    return {
      LD_PRELOAD: LIBFAKETIME ?? '',
      FAKETIME_TIMESTAMP_FILE: this.file,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
      NO_FAKE_STAT: '1',
    };
  }
}

/**
 * Fault injection, part 3: the wall clock of the api, the projector and the reactor stepped forward
 * two hours, then back two and a half, then forward to the real time, during a mixed workload. A step
 * forward runs the phases it made due at once, each once; a step back runs nothing twice; no request
 * gets a 5xx; after each step every check of docs/operations.md holds.
 */
describe.skipIf(LIBFAKETIME === undefined)(`clock steps with libfaketime (seed ${SEED})`, () => {
  let dir: string;
  let clock: SteppedClock;
  let system: SystemProcesses;
  let workload: FaultWorkload;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-fault-clock-'));
    clock = new SteppedClock(join(dir, 'faketime'));
    system = await SystemProcesses.start(join(dir, 'data'), clock.env());
    workload = new FaultWorkload({ url: () => system.url, seed: SEED, clock: () => clock.now() });
    await workload.setUp();
  });

  afterAll(async () => {
    await system?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const post = async (path: string, body: unknown): Promise<any> => {
    const response = await fetch(`${system.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    expect(response.status, JSON.stringify(answer)).toBe(201);
    return answer;
  };

  let addresses = 0;

  /** A lease on an address of its own (the workload takes the others). */
  const leaseOn = async (name: string, startMs: number, endMs: number): Promise<string> => {
    await post('/v1/floatingips', {
      floating_network_id: 'c10c0000-0000-4000-8000-00000000c10c',
      floating_ip_address: `198.51.100.${++addresses}`,
    });
    const reservations = [{ resource_type: 'virtual:floatingip', network_id: 'c10c0000-0000-4000-8000-00000000c10c', amount: 1 }];
    return (await post('/v1/leases', { name, start_date: requestDate(startMs), end_date: requestDate(endMs), reservations, events: [] }))
      .lease.id;
  };

  const phases = (leaseId: string): string[] =>
    logOf(system.dataDir)
      .filter((e) => e.streamId === `lease-${leaseId}` && /^Lease\.(Started|BeforeEndCompleted|Ended)$/.test(e.type))
      .map((e) => e.type);

  it('runs what a step forward made due once and at once, nothing twice after a step back, no 5xx, every check holding', async () => {
    // due within the two hours the clock will skip: the whole lease, and the start of a longer one
    const within = await leaseOn('within-the-step', clock.now() + 30 * MINUTE, clock.now() + 60 * MINUTE);
    const across = await leaseOn('across-the-step', clock.now() + 60 * MINUTE, clock.now() + 4 * HOUR);
    workload.resume();
    await sleep(1_500);

    clock.step(2 * HOUR);
    await until(
      'the phases the step forward made due',
      async () => (phases(within).length === 3 && phases(across).length === 1 ? true : undefined),
      15_000,
      () => JSON.stringify([phases(within), phases(across)]),
    );
    expect(phases(within)).toEqual(['Lease.Started', 'Lease.BeforeEndCompleted', 'Lease.Ended']);
    expect(phases(across)).toEqual(['Lease.Started']);
    await sleep(2_000);
    await workload.pause();
    console.info(await checkAfterFault(system, workload, 'clock stepped 2 h forward', { clock: () => clock.now() }));

    workload.resume();
    await sleep(500);
    clock.step(-30 * MINUTE);
    await sleep(3_000);
    await workload.pause();
    console.info(
      await checkAfterFault(system, workload, 'clock stepped 2.5 h back', { clock: () => clock.now(), failedPhasesAllowed: true }),
    );
    expect(phases(within)).toEqual(['Lease.Started', 'Lease.BeforeEndCompleted', 'Lease.Ended']);
    expect(phases(across)).toEqual(['Lease.Started']);

    workload.resume();
    await sleep(500);
    clock.step(0);
    await sleep(3_000);
    await workload.pause();
    console.info(
      await checkAfterFault(system, workload, 'clock stepped 30 min forward to the real time', {
        clock: () => clock.now(),
        failedPhasesAllowed: true,
      }),
    );
    expect(phases(across)).toEqual(['Lease.Started']);
  }, 300_000);
});
