import { type AttackPlan, startAttack } from './noisy-attacks.js';

/**
 * The attacker's process (forked by noisy-neighbours.ts, bundled for node by esbuild first): takes
 * its plan, starts the attack and says so, and on `stop` ends it and sends back what the server
 * answered it. Nothing here times anything: the victim is timed in the test's own process.
 */
export type AttackerMessage = { readonly started: true } | { readonly outcome: Readonly<Record<string, number>> };

const send = (message: AttackerMessage): Promise<void> =>
  new Promise((resolve, reject) => process.send?.(message, undefined, {}, (error) => (error === null ? resolve() : reject(error))));

/** What the attack cost its own process: the suite's CPU, which the victim shares the machine with. */
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return Math.round((user + system) / 1000);
};

const fail = (error: unknown): never => {
  console.error(error);
  process.exit(1);
};

process.once('message', (plan: AttackPlan) => {
  startAttack(plan).then(async (attack) => {
    process.once('message', () => {
      attack
        .stop()
        .then((outcome) => send({ outcome: { ...outcome, 'attacker CPU ms': cpuMs() } }))
        .then(() => process.exit(0), fail);
    });
    await send({ started: true });
  }, fail);
});

// the test's process is gone (a failed or interrupted run): no attack outlives it
process.once('disconnect', () => process.exit(0));
