import { type HostRegistryEvent, foldEvents, hostRegistryDecider } from '#domain/index.js';

/**
 * `node dist/bench/host-registry-fold.js`: folds 2,500 to 20,000 host registrations (what every API,
 * reactor and write index does at a start without snapshot) and prints the time per fold and per
 * registration: linear when the time per registration stays flat as the count doubles.
 */
const registrations = (count: number): HostRegistryEvent[] =>
  Array.from({ length: count }, (_, i) => ({
    type: 'HostRegistry.HostAdded',
    data: { hostId: String(i + 1), hypervisorHostname: `compute-${String(i + 1).padStart(5, '0')}` },
  }));

const foldMs = (events: readonly HostRegistryEvent[]): number => {
  const started = performance.now();
  const state = foldEvents(hostRegistryDecider, events);
  const ms = performance.now() - started;
  if (state.byName.size !== events.length) throw new Error(`folded ${state.byName.size} names of ${events.length}`);
  return ms;
};

for (const count of [2_500, 5_000, 10_000, 20_000]) {
  const events = registrations(count);
  // the best of five: the machine is shared, and the first fold also warms the JIT
  const ms = Math.min(...Array.from({ length: 5 }, () => foldMs(events)));
  console.log(JSON.stringify({ registrations: count, fold_ms: +ms.toFixed(1), us_per_registration: +((ms * 1000) / count).toFixed(2) }));
}
