import { runUsageBench, usageRows } from './usage-report.js';

/** `node dist/bench/usage-bench.js`: the usage-report figures alone (`npm run bench` runs them after the others). */
const main = async (): Promise<void> => {
  const figures = await runUsageBench(Number(process.env.BENCH_PORT ?? 62244));
  console.log(JSON.stringify(figures, null, 2));
  for (const row of usageRows(figures)) console.log(row);
};

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
