import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultWorkload, seededRandom } from '../helpers/fault-workload.js';
import { checkAfterFault, sleep } from '../helpers/fault-rounds.js';
import { APPS, SystemProcesses } from '../../bench/system-processes.js';

const ROUNDS = 21;
const SEED = Number(process.env.LEASEHOLD_FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));

/**
 * Fault injection, part 1: the api, the projector and the reactor, each a process of its own on the
 * embedded store, are killed with SIGKILL in turn at random moments of a mixed workload (creates,
 * updates, deletes, reads, timers due at once and on minute boundaries), then started again while the
 * workload goes on. After each round: docs/operations.md's promises (test/helpers/fault-rounds.ts).
 * The moments come from a seeded generator: LEASEHOLD_FAULT_SEED=<the printed seed> replays a run.
 */
describe(`SIGKILL of the api, the projector and the reactor during a mixed workload (seed ${SEED})`, () => {
  let dir: string;
  let system: SystemProcesses;
  let workload: FaultWorkload;

  beforeAll(async () => {
    console.info(`fault injection seed ${SEED} (LEASEHOLD_FAULT_SEED=${SEED} replays it)`);
    dir = mkdtempSync(join(tmpdir(), 'leasehold-fault-kills-'));
    system = await SystemProcesses.start(dir);
    workload = new FaultWorkload({ url: () => system.url, seed: SEED });
    await workload.setUp();
  });

  afterAll(async () => {
    await system?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it(`survives ${ROUNDS} rounds: acknowledged writes kept, read models equal a rebuild, invariants hold, every timer fires once, no 5xx`, async () => {
    const random = seededRandom(SEED ^ 0x5eed);
    const kills = new Map(APPS.map((app) => [app, 0]));
    for (let round = 1; round <= ROUNDS; round++) {
      const victim = APPS[(round - 1) % APPS.length] ?? 'api';
      workload.resume();
      await sleep(300 + random() * 2_000);
      await system.kill(victim);
      kills.set(victim, (kills.get(victim) ?? 0) + 1);
      await sleep(random() * 800);
      await system.startApp(victim);
      await sleep(300 + random() * 700);
      await workload.pause();
      console.info(await checkAfterFault(system, workload, `round ${round} (SIGKILL ${victim})`));
    }
    expect([...kills.values()].every((count) => count >= 7)).toBe(true);
    expect(workload.acknowledged.filter((a) => a.kind === 'create').length).toBeGreaterThan(0);
    expect(workload.acknowledged.filter((a) => a.kind === 'delete').length).toBeGreaterThan(0);
  }, 600_000);
});
